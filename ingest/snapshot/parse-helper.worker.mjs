// The parse helper's worker thread (parse-helper.ts): TypeScript through tsx, as cli/bin.mjs does.
import { register } from 'tsx/esm/api';

register();
await import('./parse-helper.worker.ts');
