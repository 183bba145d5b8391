#!/usr/bin/env node
// Entry for `npx chatskin`: the CLI is TypeScript run directly by Node 24 (type stripping).
import '../src/main.ts';
