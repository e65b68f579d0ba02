/**
 * Shared pieces of the payments tests: a job queue that records what was sent and runs due jobs
 * on demand against a hand-moved clock (the platform's queue is being built on another branch;
 * the lapse logic only needs the JobQueue port), and a form body for the hosted page.
 */
import type { Job, JobQueue, SendOptions } from '../../engine/ports/jobs.ts';
import type { Db } from '../../engine/ports/db.ts';

export interface SentJob { id: string; name: string; data: object; opts: SendOptions; inTx: boolean; done: boolean }

/** TESTS ONLY: a JobQueue that runs a job when the test says its time has come. */
export class ManualJobQueue implements JobQueue {
  readonly sent: SentJob[] = [];
  private readonly workers = new Map<string, (job: Job) => Promise<void>>();
  private n = 0;

  async send(name: string, data: object, opts: SendOptions = {}, tx?: Db): Promise<string | null> {
    if (opts.singletonKey && this.sent.some((j) => j.name === name && j.opts.singletonKey === opts.singletonKey && !j.done)) return null;
    const id = `job${++this.n}`;
    this.sent.push({ id, name, data, opts, inTx: tx !== undefined, done: false });
    return id;
  }
  async work<T>(name: string, handler: (job: Job<T>) => Promise<void>): Promise<void> {
    this.workers.set(name, handler as (job: Job) => Promise<void>);
  }
  async cancel(_name: string, id: string): Promise<void> {
    const j = this.sent.find((x) => x.id === id);
    if (j) j.done = true;
  }
  async stop(): Promise<void> {}

  /** Runs every queued job whose startAfter is at or before `now`; returns how many ran. */
  async runDue(now: Date): Promise<number> {
    let ran = 0;
    for (const j of this.sent) {
      if (j.done || (j.opts.startAfter && j.opts.startAfter > now)) continue;
      const w = this.workers.get(j.name);
      if (!w) continue;
      await w({ id: j.id, name: j.name, data: j.data, retryCount: 0 });
      j.done = true;
      ran++;
    }
    return ran;
  }
}

export const CARD = { ccName: 'Ada Lovelace', ccExp: '12/34', ccCsc: '123', postalCode: '94107' };

/** The hosted form as a browser posts it (application/x-www-form-urlencoded). */
export function formBody(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

/** The hidden form token of a rendered payment page. */
export function formTokenOf(html: string): string {
  const m = /name="formToken" value="([^"]+)"/.exec(html);
  if (!m) throw new Error('no form token on the page');
  return m[1]!;
}
