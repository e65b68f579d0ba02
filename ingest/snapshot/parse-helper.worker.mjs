// The parse helper's worker thread (parse-helper.ts) on a Node without built-in type stripping
// (before 22.18 / 23.6): TypeScript through tsx, as cli/bin.mjs does.
import { register } from 'tsx/esm/api';

register();
await import('./parse-helper.worker.ts');
