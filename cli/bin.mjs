#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=16
// The `carebridge` command. npm scripts and `npx` put the pinned Node 24 (devDependency `node`)
// first on PATH; a global install on an older Node gets a clear message instead of a crash.
// --max-semi-space-size=16 (MB): on this 24 GiB machine Node 24 grows the main thread's young
// generation to 128 MiB (two 64 MiB semi-spaces, ~10-35 MiB of it live), which an ingest's peak
// RSS then carries; at 16 MB the 5 GiB benchmark file peaked at 833-913 MiB against 959-995, as
// fast (schemas/README.md item 43). MALLOC_ARENA_MAX=2: glibc's malloc (every ArrayBuffer of
// every thread) in two arenas instead of up to 16, less memory kept in freed holes (item 48).
// `npm run carebridge` and the benchmark set both.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  process.stderr.write(`carebridge needs Node >= 22 (this is ${process.version}); run it through npm (npx carebridge …) to use the pinned Node 24.\n`);
  process.exit(1);
}
// The TypeScript runs through Node's own type stripping where Node has it on (the pinned Node 24
// does; the code is erasable syntax only, tsconfig's erasableSyntaxOnly), else through tsx, whose
// loader cost an ingest ~0.4 s more to start (schemas/README.md item 57).
if (!process.features.typescript) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import('./main.ts');
