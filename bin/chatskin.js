#!/usr/bin/env -S node --disable-warning=ExperimentalWarning
// Entry for `npx chatskin`: the CLI is TypeScript run directly by Node 24 (type stripping). The
// overlay strips its browser modules with node:module's stripTypeScriptTypes, still experimental:
// its warning is not for the person running chatskin (npm start passes the same flag).
// Plain JavaScript up to the import: an older `node` first on the PATH (the machine's own, when the
// bin is run from outside the package) failed on the .ts import with a stack trace.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(`chatskin: it needs Node 24 or newer, and this is Node ${process.versions.node} (${process.execPath}). In the chatskin folder,`
    + ' `npx chatskin` and `npm start` run on the Node 24 that `npm install` put in node_modules (README.md).\n');
  process.exitCode = 1;
} else {
  await import('../src/main.ts');
}
