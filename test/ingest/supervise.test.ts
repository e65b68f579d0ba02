import { describe, expect, test } from 'vitest';
import { HEARTBEAT_MS, Heartbeat, START_MS, STALL_TIMEOUT_SECONDS, StallWatch, heartbeatMs, stallMessage, supervisedTimeout, type Beat } from '../../cli/supervise.ts';

const beat = (cpuMs: number, work: number, phase = 'reading files'): Beat => ({ cpuMs, work, phase, stage: 'files', snapshotId: 's1' });

describe('StallWatch', () => {
  test('stalls once the limit passes without work or CPU, and not before', () => {
    let t = 0;
    const w = new StallWatch(10_000, () => t);
    w.beat(beat(500, 3));
    t = 9_999;
    w.beat(beat(600, 3)); // 100 ms of CPU: below the 1 s that counts
    expect(w.stalled()).toBeNull();
    t = 10_000;
    const s = w.stalled();
    expect(s).toMatchObject({ seconds: 10, cpuSeconds: 0.1, last: { phase: 'reading files' } });
  });

  test('work reported or enough CPU is progress and starts the window again', () => {
    let t = 0;
    const w = new StallWatch(10_000, () => t);
    w.beat(beat(0, 0));
    t = 8_000; w.beat(beat(10, 1)); // work
    t = 16_000; w.beat(beat(1010, 1)); // 1 s of CPU
    t = 25_999; expect(w.stalled()).toBeNull();
    t = 26_000; expect(w.stalled()?.seconds).toBe(10);
    // Small CPU steps that add up to 1 s count from the last progress, not from each beat.
    const v = new StallWatch(10_000, () => t);
    v.beat(beat(0, 0));
    for (let i = 1; i <= 10; i++) { t += 900; v.beat(beat(i * 100, 0)); }
    expect(t - 26_000).toBe(9_000);
    t += 2_000; // the last beat (1000 ms of CPU) was progress
    expect(v.stalled()).toBeNull();
  });

  test('no heartbeat at all is a stall, named so; a short limit gives the start START_MS', () => {
    let t = 0;
    const w = new StallWatch(3_000, () => t);
    t = 3_000;
    expect(w.stalled()).toBeNull(); // still starting
    t = START_MS - 1;
    expect(w.stalled()).toBeNull();
    t = START_MS;
    const s = w.stalled()!;
    expect(s.last).toBeNull();
    expect(stallMessage(s, true)).toContain(`no progress for ${START_MS / 1000} s while starting (no heartbeat came)`);
    // Once a heartbeat came, the limit is the limit.
    const v = new StallWatch(3_000, () => t);
    t += 100; v.beat(beat(0, 0));
    t += 3_000;
    expect(v.stalled()?.seconds).toBe(3);
    // A limit longer than the start's: the limit.
    const u = new StallWatch(60_000, () => t);
    t += 59_999; expect(u.stalled()).toBeNull();
    t += 1; expect(u.stalled()?.seconds).toBe(60);
  });

  test('for a short limit a tenth of it in CPU is progress', () => {
    let t = 0;
    const w = new StallWatch(2_000, () => t);
    expect(w.minCpuMs).toBe(200);
    w.beat(beat(0, 0));
    t = 1_900; w.beat(beat(250, 0));
    t = 3_000; expect(w.stalled()).toBeNull();
  });
});

describe('stallMessage', () => {
  test('a JSON run_failed line (as the progress events) and a sentence that says what to do', () => {
    const m = stallMessage({ seconds: 600.4, cpuSeconds: 0.02, last: { ...beat(1, 1, 'assembling the snapshot'), stage: 'assemble' } }, false);
    const [json, text] = m.trimEnd().split('\n');
    expect(JSON.parse(json!)).toMatchObject({ type: 'run_failed', snapshotId: 's1', stage: 'assemble' });
    expect((JSON.parse(json!) as { error: string }).error).toMatch(/^stalled: no progress for 600 s while assembling the snapshot \(0\.0 CPU-seconds/);
    expect(text).toMatch(/^carebridge ingest: no progress .* --resume/);
    expect(stallMessage({ seconds: 1, cpuSeconds: 0, last: null }, true)).not.toContain('{');
    expect(stallMessage({ seconds: 1, cpuSeconds: 0, last: null }, true, 'snapshot merge')).toMatch(/^\ncarebridge snapshot: no progress .* run the same command again/);
    const tables = stallMessage({ seconds: 9, cpuSeconds: 0, last: { ...beat(1, 1, 'loading tables (table gpci written last)'), stage: 'assemble' } }, true, 'ingest reference');
    expect(tables).toMatch(/^\ncarebridge ingest: no progress for 9 s while loading tables \(table gpci written last\) .* Nothing was published .* run the same command again/);
    expect(tables).not.toContain('--resume');
  });
});

describe('supervisedTimeout', () => {
  test('ingest tic | nppes | reference and snapshot merge run supervised with the default, the flag, or not at all', () => {
    const tic = (stallMs: number) => ({ command: 'ingest tic', stallMs });
    expect(supervisedTimeout(['ingest', 'tic', '--in-network', 'a.json'], {})).toEqual(tic(STALL_TIMEOUT_SECONDS * 1000));
    expect(supervisedTimeout(['ingest', 'tic', '--stall-timeout', '30'], {})).toEqual(tic(30_000));
    expect(supervisedTimeout(['ingest', 'tic', '--stall-timeout=5'], {})).toEqual(tic(5_000));
    expect(supervisedTimeout(['ingest', 'tic', '--stall-timeout', '0'], {})).toBeNull();
    expect(supervisedTimeout(['ingest', 'tic', '--help'], {})).toBeNull();
    expect(supervisedTimeout(['snapshot', 'merge', 'a', 'b', '--out', 'o'], {})).toEqual({ command: 'snapshot merge', stallMs: STALL_TIMEOUT_SECONDS * 1000 });
    expect(supervisedTimeout(['snapshot', 'merge', '--stall-timeout', '0', 'a'], {})).toBeNull();
    expect(supervisedTimeout(['ingest', 'nppes', '--main', 'x.csv'], {})).toEqual({ command: 'ingest nppes', stallMs: STALL_TIMEOUT_SECONDS * 1000 });
    expect(supervisedTimeout(['ingest', 'reference', '--stall-timeout', '45'], {})).toEqual({ command: 'ingest reference', stallMs: 45_000 });
    expect(supervisedTimeout(['ingest', 'reference', '--stall-timeout', '0'], {})).toBeNull();
    expect(supervisedTimeout(['ingest', 'nppes', '-h'], {})).toBeNull();
    expect(supervisedTimeout(['snapshot', 'publish', 'x'], {})).toBeNull();
    expect(supervisedTimeout(['serve'], {})).toBeNull();
    // The child itself, and a bad value (which the child's flag parsing reports, exit 2).
    expect(supervisedTimeout(['ingest', 'tic'], { CAREBRIDGE_SUPERVISED: '5000' })).toBeNull();
    expect(supervisedTimeout(['ingest', 'tic', '--stall-timeout', 'soon'], {})).toEqual(tic(STALL_TIMEOUT_SECONDS * 1000));
  });

  test('the heartbeat comes at least four times per stall window', () => {
    expect(heartbeatMs(STALL_TIMEOUT_SECONDS * 1000)).toBe(HEARTBEAT_MS);
    expect(heartbeatMs(2_000)).toBe(500);
    expect(heartbeatMs(1)).toBe(50);
  });
});

describe('Heartbeat', () => {
  test('counts progress events as work (a repeated progress line is not), and tells the phase', () => {
    const got: Beat[] = [];
    const hb = new Heartbeat((b) => got.push(b), 60_000);
    hb.stop();
    expect(got).toHaveLength(1); // one at once
    hb.event({ type: 'run_started', snapshotId: 's9' });
    expect(got).toHaveLength(2); // and one for each new phase
    hb.event({ type: 'file_progress', fileKey: 'f', bytes: 10, uncompressedBytes: 20, rows: 1 });
    hb.event({ type: 'file_progress', fileKey: 'f', bytes: 10, uncompressedBytes: 20, rows: 1 });
    hb.event({ type: 'file_progress', fileKey: 'g', bytes: 10, uncompressedBytes: 20, rows: 1 });
    expect(got).toHaveLength(2);
    hb.beat();
    expect(got.at(-1)).toMatchObject({ work: 3, phase: 'reading files', stage: 'files', snapshotId: 's9' });
    hb.event({ type: 'assemble_started', snapshotId: 's9' });
    expect(got.at(-1)).toMatchObject({ work: 4, phase: 'assembling the snapshot', stage: 'assemble' });
    hb.event({ type: 'table_done', snapshotId: 's9', table: 'rates' });
    expect(got.at(-1)).toMatchObject({ work: 5, phase: 'assembling the snapshot (table rates written last)', stage: 'assemble' });
    expect(got.at(-1)!.cpuMs).toBeGreaterThan(0);
  });

  test('names the phases of a table ingest (nppes, reference): each table loaded is work', () => {
    const got: Beat[] = [];
    const hb = new Heartbeat((b) => got.push(b), 60_000);
    hb.stop();
    hb.event({ type: 'tables_started' });
    expect(got.at(-1)).toMatchObject({ work: 1, phase: 'loading tables', stage: 'assemble' });
    hb.event({ type: 'table_loaded', table: 'gpci', rows: 109 });
    expect(got.at(-1)).toMatchObject({ work: 2, phase: 'loading tables (table gpci written last)' });
  });
});
