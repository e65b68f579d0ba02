/**
 * Triage quality benchmark (issue 34, "Speed and quality"; STYLE.md 10: a script, not a test).
 * Runs the vignettes (test/bench/triage-vignettes/, each citing its public source) through a
 * driver with a simulated patient, and prints emergency sensitivity and specificity and
 * three-level accuracy (emergent / non-emergent / self-care) for the development set and the
 * held-out set apart, with the symptom-checker baseline of Semigran et al. (BMJ 2015;351:h3480:
 * 80% of emergent cases and 57% of all cases triaged appropriately) as the reference ratio.
 * Goal on the held-out set: >= 95% emergency sensitivity, >= 75% overall.
 *
 * Sets: dev.json (tuned on), heldout.json (A: held out until its one blind run on 2026-11-28,
 * then seen), heldout-b.json (B: written after that run; blind run once, then seen), heldout-c.json (C: written after B's run; blind run once, then seen), heldout-d.json (D: written after
 * C's run; blind run once, then seen), heldout-e.json (E: written after D's fixes; blind run once,
 * then seen), heldout-f.json (F: written after E's fixes; blind run once), heldout-g.json (G: written
 * before the red-flag breadth work, lay wording; blind run once, then seen), heldout-h.json and heldout-i.json (H, I: written
 * blind by another author, committed before their first run). Each blind run's figures: docs/performance-log.md.
 *
 *   npm run bench:triage -- [--set dev|heldout|heldout-b|heldout-c|heldout-d|heldout-e|heldout-f|heldout-g|heldout-h|heldout-i|heldout-j..q|blind|probes|probe-<name>|all] [--file vignettes.json] [--driver engine|api] [--verbose]
 *   (--driver api: every vignette through the real HTTP API of a real server, as issue 34 asks)
 *   [--patient ours|terse|verbose|unhelpful]: the simulated patient's style (triage-patients.ts); the
 *   level must not depend on it, and with 'unhelpful' every conversation must still end
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createRulesEngine } from '../../engine/triage/rules-engine.ts';
import { screenedEngine } from '../../engine/triage/screened-engine.ts';
import { engineDriver, type DriverFactory } from './triage-driver.ts';
import { apiDriver, type ApiDriverFactory } from './triage-api-driver.ts';
import { loadVignettes, runVignette, score, type CaseResult, type Vignette } from './triage-sim.ts';
import { PATIENT_STYLES, type PatientStyle } from './triage-patients.ts';

const BASELINE = { sensitivity: 0.8, accuracy: 0.57 };
const DIR = join(import.meta.dirname, 'triage-vignettes');

function pct(x: number): string {
  return Number.isNaN(x) ? '  n/a' : `${(x * 100).toFixed(1).padStart(5)}%`;
}

let patient: PatientStyle = 'ours';

async function runSet(driver: DriverFactory, name: string, vignettes: readonly Vignette[], verbose: boolean): Promise<void> {
  const results: CaseResult[] = [];
  for (const v of vignettes) results.push(await runVignette(driver, v, 12, patient));
  const s = score(results);
  const turns = results.map((r) => r.turns).sort((a, b) => a - b);
  console.log(`\n${name}: ${s.n} vignettes (${s.emergencies} emergent), driver ${driver.name}${patient === 'ours' ? '' : `, patient ${patient}`}`);
  console.log(`  emergency sensitivity ${pct(s.sensitivity)}   (Semigran 2015: 80.0%; ratio ${(s.sensitivity / BASELINE.sensitivity).toFixed(2)})`);
  console.log(`  emergency specificity ${pct(s.specificity)}`);
  console.log(`  three-level accuracy  ${pct(s.accuracy)}   (Semigran 2015: 57.0%; ratio ${(s.accuracy / BASELINE.accuracy).toFixed(2)})`);
  console.log(`  messages per case: median ${turns[Math.floor(turns.length / 2)]}, max ${turns[turns.length - 1]}; unfinished ${s.unfinished}`);
  for (const m of s.misses) {
    const v = vignettes.find((x) => x.id === m.id)!;
    console.log(`  miss ${m.id}: gold ${m.gold}, got ${m.got ?? 'none'} (${m.acuity})${verbose ? `  "${v.narrative}"` : ''}`);
  }
  for (const r of results.filter((x) => !x.finished)) console.log(`  unfinished ${r.id} after ${r.turns} messages`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { set: { type: 'string', default: 'all' }, driver: { type: 'string', default: 'engine' }, verbose: { type: 'boolean', default: false }, file: { type: 'string' }, patient: { type: 'string', default: 'ours' } } });
  if (values.driver !== 'engine' && values.driver !== 'api') throw new Error(`unknown --driver ${values.driver} (engine or api)`);
  if (!PATIENT_STYLES.includes(values.patient as PatientStyle)) throw new Error(`unknown --patient ${values.patient} (${PATIENT_STYLES.join(', ')})`);
  patient = values.patient as PatientStyle;
  const t0 = performance.now();
  const rules = createRulesEngine();
  const loadMs = performance.now() - t0;
  const callMs: number[] = [];
  const api: ApiDriverFactory | null = values.driver === 'api' ? await apiDriver() : null;
  const driver = api ?? engineDriver(screenedEngine(rules, rules), 'engine (screenedEngine(rules-v1), called directly)', callMs);
  console.log(`triage benchmark, ${new Date().toISOString()}, Node ${process.version}`);
  // --file: a vignette file from anywhere (a held-out set kept outside the repo until its blind run)
  if (values.file !== undefined) {
    await runSet(driver, `set ${values.file}`, loadVignettes(values.file), values.verbose);
    await api?.close();
    return;
  }
  if (values.set === 'dev' || values.set === 'all') await runSet(driver, 'development set', loadVignettes(join(DIR, 'dev.json')), values.verbose);
  if (values.set === 'heldout' || values.set === 'all') await runSet(driver, 'HELD-OUT set A (seen once: one fix after its blind run)', loadVignettes(join(DIR, 'heldout.json')), values.verbose);
  if (values.set === 'heldout-h' || values.set === 'all') await runSet(driver, 'HELD-OUT set H (written blind; first run is its blind run)', loadVignettes(join(DIR, 'heldout-h.json')), values.verbose);
  if (values.set === 'heldout-i' || values.set === 'all') await runSet(driver, 'HELD-OUT set I (written blind, rare presentations and look-alikes; first run is its blind run)', loadVignettes(join(DIR, 'heldout-i.json')), values.verbose);
  // Blind sets from J on (heldout-j.json ...): written outside the repo by authors who read neither the engine nor
  // its tests, run blind first, committed after; test/bench/triage-vignettes/README.md says which are seen since.
  for (const file of readdirSync(DIR).filter((x) => /^heldout-[j-z]\.json$/.test(x)).sort()) {
    const name = file.replace(/\.json$/, '');
    if (values.set === name || values.set === 'all' || values.set === 'blind') await runSet(driver, `HELD-OUT set ${name.slice(8).toUpperCase()}`, loadVignettes(join(DIR, file)), values.verbose);
  }
  if (values.set === 'heldout-g' || values.set === 'all') await runSet(driver, 'HELD-OUT set G (blind run once, then seen)', loadVignettes(join(DIR, 'heldout-g.json')), values.verbose);
  if (values.set === 'heldout-f' || values.set === 'all') await runSet(driver, 'HELD-OUT set F (never tuned on)', loadVignettes(join(DIR, 'heldout-f.json')), values.verbose);
  if (values.set === 'heldout-e' || values.set === 'all') await runSet(driver, 'HELD-OUT set E (seen once: fixes after its blind run)', loadVignettes(join(DIR, 'heldout-e.json')), values.verbose);
  if (values.set === 'heldout-d' || values.set === 'all') await runSet(driver, 'HELD-OUT set D (seen once: fixes after its blind run)', loadVignettes(join(DIR, 'heldout-d.json')), values.verbose);
  if (values.set === 'heldout-c' || values.set === 'all') await runSet(driver, 'HELD-OUT set C (seen once: fixes after its blind run)', loadVignettes(join(DIR, 'heldout-c.json')), values.verbose);
  if (values.set === 'heldout-b' || values.set === 'all') await runSet(driver, 'HELD-OUT set B (seen once: fixes after its blind run)', loadVignettes(join(DIR, 'heldout-b.json')), values.verbose);
  // Probe sets (probe-*.json): small paraphrase sets written before a change, run blind once, then seen.
  for (const file of readdirSync(DIR).filter((x) => /^probe-.*\.json$/.test(x)).sort()) {
    const name = file.replace(/\.json$/, '');
    if (values.set === name || values.set === 'all' || values.set === 'probes') await runSet(driver, `PROBE set ${name}`, loadVignettes(join(DIR, file)), values.verbose);
  }
  await api?.close();
  if (api) return;
  console.log(`\nengine: model load ${loadMs.toFixed(0)} ms; ${callMs.length} assess calls, p50 ${quantile(callMs, 0.5).toFixed(2)} ms, p95 ${quantile(callMs, 0.95).toFixed(2)} ms, max ${Math.max(...callMs).toFixed(2)} ms`);
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
