#!/usr/bin/env node
// The `carebridge` command. npm scripts and `npx` put the pinned Node 24 (devDependency `node`)
// first on PATH; a global install on an older Node gets a clear message instead of a crash.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  process.stderr.write(`carebridge needs Node >= 22 (this is ${process.version}); run it through npm (npx carebridge …) to use the pinned Node 24.\n`);
  process.exit(1);
}
const { register } = await import('tsx/esm/api');
register();
await import('./main.ts');
