/**
 * The embedded default TriageEngine ('rules-v1'): offline and deterministic. Each call recomputes
 * from all turns: findings -> red-flag screen (emergency wins at once) -> complaints -> what is
 * still needed (red-flag gates first, one at a time; then the rest, three at a time) -> when the
 * required needs are met, the timing (urgent / routine / self-care) and the clinician's summary.
 */
import type { Acuity, InformationNeed, TriageEngine, TriageInput, TriageResult } from './triage.port.ts';
import { COMPLAINTS, GATES, OTHER, type Complaint } from './triage-complaints.ts';
import { extractFindings, type Findings } from './triage-findings.ts';
import { BASE_NEEDS, BASE_ORDER } from './triage-needs.ts';
import { consultationSummary, emergencyReply, finalReply, questionReply } from './triage-replies.ts';
import { screenFindings, type RedFlagRule } from './triage-rules.ts';
import { createTextAnalyzer, type TextAnalyzer } from './triage-text.ts';
import { createCanonicalizer, STEM_WORDS, wordsOfPatterns, type Canonicalizer } from './triage-lexical.ts';
import { CONCEPTS } from './triage-concepts.ts';
import { FAMILIES, VETOES } from './triage-cooccur.ts';

export const RULES_ENGINE_NAME = 'rules-v1';
const BATCH = 3;
/**
 * At most this many question turns: a conversation always ends (complete with a level, or an
 * emergency), even with a patient who never answers anything usable. Each need is asked at most
 * twice already; this is the backstop for a long list of complaints and their gates.
 */
export const MAX_QUESTION_TURNS = 10;

/** What the red-flag screen alone concludes from a request. */
export interface RedFlagScreen {
  acuity: 'emergency' | 'urgent' | null;
  redFlags: string[];
  /** the full emergency result when the screen found an emergency */
  emergency: TriageResult | null;
}

export interface RulesEngine extends TriageEngine {
  /** The red-flag screen on its own (used by screenedEngine before any other engine). */
  screen(input: TriageInput): RedFlagScreen;
}

function complaintsOf(f: Findings): Complaint[] {
  const found = COMPLAINTS
    .map((c) => ({ c, at: Math.min(...c.concepts.map((id) => f.order.get(id) ?? f.resolvedOrder.get(id) ?? Infinity)) }))
    .filter((x) => x.at !== Infinity)
    .sort((a, b) => a.at - b.at)
    .map((x) => x.c);
  const superseded = new Set(found.flatMap((c) => c.supersedes ?? []));
  if (found.length > 0) return found.filter((c) => !superseded.has(c.id));
  return f.hasNarrative ? [OTHER] : [];
}

function gateNeeds(f: Findings, complaints: readonly Complaint[]): InformationNeed[] {
  // a sudden or severe cue in a high-risk system (the 'alarm' concept): the general warning-sign question first
  const keys = [...new Set([...(f.present.has('alarm') ? ['gate_general'] : []), ...complaints.flatMap((c) => c.gates)])];
  return keys
    .map((k) => GATES[k]!)
    .filter((g) => !f.gates.has(g.key) && !g.onYes.some((c) => f.present.has(c)) && (f.askedCount.get(g.key) ?? 0) < 2 && !g.onYes.some((c) => f.negated.has(c)))
    .map((g) => ({ key: g.key, prompt: g.prompt, why: g.why, priority: 'required', redFlagGate: true }));
}

function baseNeeds(f: Findings): InformationNeed[] {
  const pregnancyPossible = f.sex === 'female' && (f.ageYears === null || (f.ageYears >= 11 && f.ageYears <= 55));
  return BASE_ORDER
    .filter((k) => k !== 'pregnancy' || pregnancyPossible)
    .filter((k) => !f.answered.has(k) && (f.askedCount.get(k) ?? 0) < 2)
    .map((k) => BASE_NEEDS[k]);
}

/** A warning-sign question asked and never answered yes or no ("not sure", silence): it was not ruled out. */
function unansweredGate(f: Findings): boolean {
  return [...f.askedCount.keys()].some((k) => k.startsWith('gate_') && !f.gates.has(k));
}

function disposition(f: Findings, complaints: readonly Complaint[], urgent: boolean): Exclude<Acuity, 'emergency'> {
  if (urgent) return 'urgent';
  // a baby or a pregnancy is at risk unless every complaint is one whose NHS page is written for them
  // (teething, colic, nappy rash; morning sickness, swollen ankles); self-care only when every warning
  // sign asked about was ruled out by the patient
  const babyPage = complaints.length > 0 && complaints.every((c) => c.babies === true);
  const pregnancyPage = complaints.length > 0 && complaints.every((c) => c.pregnancy === true);
  const atRisk = unansweredGate(f) || (f.pregnant === true && !pregnancyPage) || (f.ageYears !== null && ((f.ageYears < 1 && !babyPage) || f.ageYears >= 75))
    || f.present.has('immunosuppressed') || f.present.has('not_improving') || (f.present.has('colicky') && !babyPage) || f.present.has('recurrent');
  const selfCare = complaints.length > 0 && complaints.every((c) => c.selfCare?.(f) === true);
  return selfCare && !atRisk ? 'self_care' : 'routine';
}

function gateLines(f: Findings): string[] {
  return [...f.gates].map(([k, v]) => `${GATES[k]?.prompt ?? k} ${v}`);
}

function emergencyResult(fired: readonly RedFlagRule[]): TriageResult {
  return {
    acuity: 'emergency',
    redFlags: fired.map((r) => r.label),
    reply: emergencyReply(fired),
    asked: [],
    informationNeed: [],
    complete: false,
    summary: null,
    engine: RULES_ENGINE_NAME,
  };
}

let lexiconReader: Canonicalizer | null = null;
/**
 * The canonical reader for this lexicon: its own words (and its stems' full forms) are what typos
 * are corrected to. Built once per process and shared: it depends only on the static lexicon, and
 * its one mutable part is a bounded memo of corrections (same input, same answer).
 */
export function lexiconCanonicalizer(): Canonicalizer {
  lexiconReader ??= createCanonicalizer([...wordsOfPatterns([...CONCEPTS.map((c) => c.re.source), ...FAMILIES.flatMap((f) => [...f.groups, f.unless ?? '']), ...VETOES.flatMap((v) => [v.when.source, v.unlessAlso?.source ?? ''])]), ...STEM_WORDS]);
  return lexiconReader;
}

/** Creates the rules engine; the English model (about 4 MB) and the word list (about 3 MB) load once per engine, offline. */
export function createRulesEngine(opts: { text?: TextAnalyzer; canonicalizer?: Canonicalizer } = {}): RulesEngine {
  const text = opts.text ?? createTextAnalyzer();
  // the shared reader is built on the first sentence read, so an app that never triages never pays for it
  let canon = opts.canonicalizer ?? null;
  const findings = (input: TriageInput): Findings => extractFindings(input, text, (s) => (canon ??= lexiconCanonicalizer()).canonical(s));

  function screen(input: TriageInput): RedFlagScreen {
    const s = screenFindings(findings(input));
    return {
      acuity: s.acuity,
      redFlags: s.fired.map((r) => r.label),
      emergency: s.acuity === 'emergency' ? emergencyResult(s.fired) : null,
    };
  }

  function assessSync(input: TriageInput): TriageResult {
    const f = findings(input);
    const s = screenFindings(f);
    if (s.acuity === 'emergency') return emergencyResult(s.fired);
    const urgentFlags = s.fired.map((r) => r.label);
    const complaints = complaintsOf(f);
    const gates = gateNeeds(f, complaints);
    const base = complaints.length === 0 ? [BASE_NEEDS.complaint] : baseNeeds(f);
    const informationNeed = [...gates, ...base];
    const requiredLeft = informationNeed.some((n) => n.priority === 'required');
    const recommendedUnasked = informationNeed.some((n) => n.priority !== 'required' && !f.askedCount.has(n.key));
    const questionTurns = input.turns.filter((t) => t.role === 'assistant' && (t.asked?.length ?? 0) > 0).length;
    if ((requiredLeft || recommendedUnasked) && questionTurns < MAX_QUESTION_TURNS) {
      const next = gates.length > 0 ? gates.slice(0, 1) : base.slice(0, BATCH);
      const first = !input.turns.some((t) => t.role === 'assistant');
      return {
        acuity: urgentFlags.length > 0 ? 'urgent' : 'routine',
        redFlags: urgentFlags,
        reply: questionReply({ first, concern: complaints[0] && complaints[0] !== OTHER ? complaints[0].label : null, needs: next, urgentFlags }),
        asked: next.map((n) => n.key),
        informationNeed,
        complete: false,
        summary: null,
        engine: RULES_ENGINE_NAME,
      };
    }
    const acuity = disposition(f, complaints, urgentFlags.length > 0);
    return {
      acuity,
      redFlags: urgentFlags,
      reply: finalReply(acuity, complaints, urgentFlags),
      asked: [],
      informationNeed,
      complete: true,
      summary: consultationSummary(f, complaints, acuity, urgentFlags, gateLines(f)),
      engine: RULES_ENGINE_NAME,
    };
  }

  return {
    screen,
    async assess(input: TriageInput, signal?: AbortSignal): Promise<TriageResult> {
      signal?.throwIfAborted();
      return assessSync(input);
    },
  };
}
