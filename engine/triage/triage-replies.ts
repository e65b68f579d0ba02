/**
 * The words the patient sees and the clinician's summary. Plain, kind, never a diagnosis; the
 * emergency instruction always comes first (STYLE.md, Clinical wording). US numbers: 911 for
 * emergencies, 988 for the Suicide & Crisis Lifeline, 1-800-222-1222 for Poison Control.
 */
import type { Acuity, InformationNeed } from './triage.port.ts';
import type { Complaint } from './triage-complaints.ts';
import type { Findings } from './triage-findings.ts';
import type { RedFlagRule } from './triage-rules.ts';

export const CALL_911 = 'Call 911 now';
export const CALL_988 = 'Please call or text 988 now';

function list(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** The emergency reply: the instruction first, then why, then what to do meanwhile. */
export function emergencyReply(fired: readonly RedFlagRule[]): string {
  const crisis = fired.some((r) => r.crisis);
  const poison = fired.some((r) => r.poison);
  const others = fired.filter((r) => !r.crisis);
  const parts: string[] = [];
  if (crisis) {
    parts.push(`${CALL_988} to reach the Suicide & Crisis Lifeline, or call 911 if you are in immediate danger or have already hurt yourself.`);
    parts.push('You deserve support right now, and they are there to help any time, day or night. If you can, stay with someone you trust and move away from anything you could use to hurt yourself.');
    if (others.length > 0) parts.push(`Because you also mentioned ${list(others.map((r) => r.label))}, call 911 if that applies now.`);
  } else {
    parts.push(`${CALL_911} or go to the nearest emergency department.`);
    parts.push(`What you describe (${list(others.map((r) => r.label))}) needs emergency care straight away, so please do not wait for an online visit.`);
    if (poison) parts.push('You can also call Poison Control at 1-800-222-1222 for advice while help is on its way.');
    parts.push('If you can, have someone stay with you, and unlock the door for the ambulance crew.');
  }
  parts.push('This conversation cannot continue here, so that nothing delays emergency help.');
  return parts.join(' ');
}

/** A reply asking the next questions, numbered when there are several. */
export function questionReply(opts: { first: boolean; concern: string | null; needs: readonly InformationNeed[]; urgentFlags: readonly string[] }): string {
  const lead = opts.first
    ? opts.concern ? `Thank you for telling me about ${opts.concern}. I'll ask a few questions so a clinician can help you safely.` : 'Thank you. I\'ll ask a few questions so a clinician can help you safely.'
    : 'Thank you.';
  const gate = opts.needs.some((n) => n.redFlagGate);
  const ask = opts.needs.length === 1
    ? opts.needs[0]!.prompt
    : opts.needs.map((n, i) => `${i + 1}. ${n.prompt}`).join('\n');
  const note = opts.urgentFlags.length > 0 && !gate
    ? ` Because of ${list(opts.urgentFlags)}, a clinician should see you today.`
    : '';
  const safety = gate ? ' If anything gets suddenly worse while we talk, call 911.' : '';
  return `${lead}${note}${safety}\n\n${ask}`;
}

/** The reply when triage is complete: how soon, what to do, and always the offer of a visit. */
export function finalReply(acuity: Exclude<Acuity, 'emergency'>, complaints: readonly Complaint[], urgentFlags: readonly string[]): string {
  const done = 'Thank you, that is everything I need.';
  const safety = 'If you suddenly feel much worse, have trouble breathing, chest pain, or feel faint, call 911.';
  switch (acuity) {
    case 'self_care': {
      const advice = complaints.map((c) => c.advice).filter(Boolean);
      return `${done} From what you have told me, this can usually be looked after at home: ${advice.join('; ')}. `
        + 'If it is not improving in a few days, gets worse, or you are worried, please get it checked. '
        + `If you would still like a clinician to look at this, you can go ahead with a visit now. ${safety}`;
    }
    case 'routine':
      return `${done} This does not sound like an emergency, but a clinician should look at it. `
        + `The next step is a visit with a clinician, and you can go ahead now. ${safety}`;
    case 'urgent':
      return `${done} Because of ${list(urgentFlags) || 'what you describe'}, a clinician should see you today, not wait. `
        + `The next step is a visit with a clinician, and you can go ahead now. ${safety}`;
  }
}

const ACUITY_WORDS: Record<Acuity, string> = {
  emergency: 'emergency: sent to 911',
  urgent: 'urgent: to be seen today',
  routine: 'routine: a clinician visit, not urgent',
  self_care: 'self-care advised; visit offered',
};

function years(a: number): string {
  if (a < 1 / 12) return `${Math.round(a * 52)} weeks`;
  if (a < 2) return `${Math.round(a * 12)} months`;
  return `${Math.round(a)} years`;
}

/** The clinician's summary: what the patient said and answered, the flags, the timing. No diagnosis. */
export function consultationSummary(f: Findings, complaints: readonly Complaint[], acuity: Acuity, flags: readonly string[], gateLines: readonly string[]): string {
  const who = [f.ageYears !== null ? `age ${years(f.ageYears)}` : 'age not given', f.sex ?? 'sex not given'];
  if (f.pregnant !== null) who.push(f.pregnant ? 'pregnant' : 'not pregnant');
  const lines = [
    `Main concern: ${list(complaints.map((c) => c.label))}.`,
    `Patient: ${who.join(', ')}.`,
    `In their words: "${f.opening.length > 400 ? `${f.opening.slice(0, 400)}...` : f.opening}"`,
    `Duration: ${f.durationText ?? 'not given'}. Severity: ${f.severity !== null ? `${f.severity}/10` : 'not given'}.${f.tempC !== null ? ` Temperature reported: ${f.tempC} C.` : ''}`,
    `Medicines: ${f.medicines ?? 'not given'}. Allergies: ${f.allergies ?? 'not given'}. Conditions: ${f.conditions ?? 'not given'}.`,
    `Warning-sign questions: ${gateLines.length > 0 ? gateLines.join('; ') : 'none asked'}.`,
    `Flags: ${flags.length > 0 ? flags.join('; ') : 'none found'}.`,
    `Triage timing: ${ACUITY_WORDS[acuity]}. This summary records symptoms only; it makes no diagnosis.`,
  ];
  return lines.join('\n');
}
