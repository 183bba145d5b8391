#!/usr/bin/env -S node --disable-warning=ExperimentalWarning
// Entry for `npx chatskin`: the CLI is TypeScript run directly by Node 24 (type stripping). The
// overlay strips its browser modules with node:module's stripTypeScriptTypes, still experimental:
// its warning is not for the person running chatskin (npm start passes the same flag).
import '../src/main.ts';
