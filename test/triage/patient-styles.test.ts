/**
 * The level does not depend on how the simulated patient words its answers (issue 34, item 3: an
 * outside judge drives the engine with its own patient): the development set and probe set P11 run
 * with our patient, a terse one and a verbose one (test/bench/triage-patients.ts) reach the same
 * level case by case; with an unhelpful one every conversation still ends.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRulesEngine } from '../../engine/triage/rules-engine.ts';
import { engineDriver } from '../bench/triage-driver.ts';
import { loadVignettes, runVignette } from '../bench/triage-sim.ts';
import type { PatientStyle } from '../bench/triage-patients.ts';

const engine = createRulesEngine();
const driver = engineDriver(engine);
const DIR = join(import.meta.dirname, '../bench/triage-vignettes');
const cases = [...loadVignettes(join(DIR, 'dev.json')), ...loadVignettes(join(DIR, 'probe-p11.json'))];

async function levels(style: PatientStyle): Promise<Record<string, string | null>> {
  const out: Record<string, string | null> = {};
  for (const v of cases) out[v.id] = (await runVignette(driver, v, 12, style)).got;
  return out;
}

describe('patient styles', () => {
  it('terse and verbose answers give the same level as ours, case by case', async () => {
    const ours = await levels('ours');
    expect(await levels('terse')).toEqual(ours);
    expect(await levels('verbose')).toEqual(ours);
  });

  it('an unhelpful patient still reaches an end in every case', async () => {
    for (const v of cases) {
      const r = await runVignette(driver, v, 12, 'unhelpful');
      expect(r.finished, v.id).toBe(true);
    }
  });
});
