/**
 * FHIR resources flattened into plain rows an agent can read (issue 36, item 2; service-spec.md,
 * Health records view: "Fields inside the rows: not shown", so they are defined here and in the
 * README). Every row carries `id` (the FHIR resource id) and a `date` (ISO, what it sorts by,
 * newest first). Codes keep their system's short name (`ICD-10-CM`, `RxNorm`, `LOINC`, `CPT`,
 * `CVX`, `SNOMED`). Money is in dollars (numbers).
 */
import type { FhirResource } from './fhir-resource.ts';

/** One row of a view, with what it sorts by. */
export interface Sortable {
  date: string | null;
  key: string;
  row: Record<string, unknown>;
}

// Loose accessors: payers' resources vary, and validation only guarantees the base structure.
type J = Record<string, unknown> | undefined;
const obj = (v: unknown): J => (v && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : undefined);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);

const SYSTEMS: Record<string, string> = {
  'http://hl7.org/fhir/sid/icd-10-cm': 'ICD-10-CM',
  'http://www.nlm.nih.gov/research/umls/rxnorm': 'RxNorm',
  'http://loinc.org': 'LOINC',
  'http://www.ama-assn.org/go/cpt': 'CPT',
  'http://hl7.org/fhir/sid/cvx': 'CVX',
  'http://snomed.info/sct': 'SNOMED',
};

function firstCoding(cc: unknown): J {
  return obj(arr(obj(cc)?.coding)[0]);
}
/** Human text of a CodeableConcept: its text, else the first coding's display, else its code. */
function text(cc: unknown): string | null {
  const c = obj(cc);
  if (!c) return null;
  const coding = firstCoding(c);
  return str(c.text) ?? str(coding?.display) ?? str(coding?.code);
}
function code(cc: unknown): string | null {
  return str(firstCoding(cc)?.code);
}
function codeSystem(cc: unknown): string | null {
  const s = str(firstCoding(cc)?.system);
  return s ? SYSTEMS[s] ?? s : null;
}
const day = (v: unknown): string | null => str(v);
const display = (ref: unknown): string | null => str(obj(ref)?.display) ?? str(obj(ref)?.reference);
const quantity = (q: unknown) => {
  const o = obj(q);
  return o ? { value: num(o.value), unit: str(o.unit) ?? str(o.code) } : null;
};
const amount = (m: unknown): number | null => num(obj(m)?.amount) ?? num(obj(m)?.value);

/** The date a resource sorts by (stored beside it, as `sort_at`). */
export function sortDateOf(r: FhirResource): string | null {
  switch (r.resourceType) {
    case 'ExplanationOfBenefit': return day(obj(r.billablePeriod)?.start) ?? day(r.created);
    case 'Condition': return day(r.recordedDate) ?? day(r.onsetDateTime);
    case 'MedicationRequest': return day(r.authoredOn);
    case 'AllergyIntolerance': return day(r.recordedDate) ?? day(r.onsetDateTime);
    case 'Immunization': return day(r.occurrenceDateTime) ?? day(r.recorded);
    case 'Observation': return day(r.effectiveDateTime) ?? day(obj(r.effectivePeriod)?.start) ?? day(r.issued);
    case 'Encounter': return day(obj(r.period)?.start);
    case 'Coverage': return day(obj(r.period)?.start);
    default: return null;
  }
}

/** `category` codes of an Observation (laboratory, vital-signs, …). */
export function observationCategories(r: FhirResource): string[] {
  return arr(r.category).flatMap((c) => arr(obj(c)?.coding).map((x) => str(obj(x)?.code))).filter((x): x is string => !!x);
}

function classOf(cov: FhirResource, type: string): J {
  return obj(arr(cov.class).find((c) => code(obj(c)?.type) === type));
}

/** coverage: one row per Coverage. */
export function coverageRow(r: FhirResource): Record<string, unknown> {
  const group = classOf(r, 'group');
  const plan = classOf(r, 'plan');
  return {
    id: r.id, status: str(r.status), payer: display(arr(r.payor)[0]),
    planName: str(plan?.name), planId: str(plan?.value), groupName: str(group?.name), groupNumber: str(group?.value),
    subscriberId: str(r.subscriberId), relationship: code(r.relationship), type: text(r.type),
    periodStart: day(obj(r.period)?.start), periodEnd: day(obj(r.period)?.end),
  };
}

/** coverage_class: one row per Coverage.class (group, plan, rxgroup, …). */
export function coverageClassRows(r: FhirResource): Record<string, unknown>[] {
  return arr(r.class).map((c) => ({
    coverageId: r.id, type: code(obj(c)?.type), value: str(obj(c)?.value), name: str(obj(c)?.name), coverageStatus: str(r.status),
  }));
}

export function problemRow(r: FhirResource): Record<string, unknown> {
  return {
    id: r.id, name: text(r.code), code: code(r.code), codeSystem: codeSystem(r.code),
    clinicalStatus: code(r.clinicalStatus), verificationStatus: code(r.verificationStatus), category: code(arr(r.category)[0]),
    onset: day(r.onsetDateTime), abatement: day(r.abatementDateTime), recordedDate: day(r.recordedDate),
  };
}

export function medicationRow(r: FhirResource): Record<string, unknown> {
  const dispense = obj(r.dispenseRequest);
  return {
    id: r.id, medication: text(r.medicationCodeableConcept) ?? display(r.medicationReference), code: code(r.medicationCodeableConcept),
    codeSystem: codeSystem(r.medicationCodeableConcept), status: str(r.status), intent: str(r.intent), authoredOn: day(r.authoredOn),
    instructions: str(obj(arr(r.dosageInstruction)[0])?.text), quantity: quantity(dispense?.quantity),
    refillsAllowed: num(dispense?.numberOfRepeatsAllowed), prescriber: display(r.requester),
  };
}

export function allergyRow(r: FhirResource): Record<string, unknown> {
  const reaction = obj(arr(r.reaction)[0]);
  return {
    id: r.id, substance: text(r.code), code: code(r.code), codeSystem: codeSystem(r.code), clinicalStatus: code(r.clinicalStatus),
    verificationStatus: code(r.verificationStatus), category: str(arr(r.category)[0]), criticality: str(r.criticality),
    reaction: text(arr(reaction?.manifestation)[0]), severity: str(reaction?.severity), recordedDate: day(r.recordedDate),
  };
}

export function immunizationRow(r: FhirResource): Record<string, unknown> {
  return {
    id: r.id, vaccine: text(r.vaccineCode), code: code(r.vaccineCode), codeSystem: codeSystem(r.vaccineCode),
    status: str(r.status), date: day(r.occurrenceDateTime), lotNumber: str(r.lotNumber),
  };
}

/** labs and vitals: one row per Observation; a panel (blood pressure) lists its components. */
export function observationRow(r: FhirResource): Record<string, unknown> {
  const range = obj(arr(r.referenceRange)[0]);
  const q = quantity(r.valueQuantity);
  const components = arr(r.component).map((c) => ({ name: text(obj(c)?.code), code: code(obj(c)?.code), ...quantity(obj(c)?.valueQuantity) }));
  return {
    id: r.id, name: text(r.code), code: code(r.code), codeSystem: codeSystem(r.code), status: str(r.status),
    date: sortDateOf(r), value: q?.value ?? str(r.valueString) ?? text(r.valueCodeableConcept), unit: q?.unit ?? null,
    ...(components.length ? { components } : {}),
    referenceLow: num(obj(range?.low)?.value), referenceHigh: num(obj(range?.high)?.value),
    interpretation: code(arr(r.interpretation)[0]),
  };
}

export function encounterRow(r: FhirResource): Record<string, unknown> {
  const cls = obj(r.class);
  return {
    id: r.id, type: text(arr(r.type)[0]), code: code(arr(r.type)[0]), class: str(cls?.display) ?? str(cls?.code),
    status: str(r.status), start: day(obj(r.period)?.start), end: day(obj(r.period)?.end),
    provider: display(obj(arr(r.participant)[0])?.individual), facility: display(r.serviceProvider), reason: text(arr(r.reasonCode)[0]),
  };
}

function adjudicated(list: unknown, category: string): number | null {
  const a = obj(arr(list).find((x) => code(obj(x)?.category) === category));
  return a ? amount(a.amount) : null;
}

/** claims_header: one row per ExplanationOfBenefit. */
export function claimHeaderRow(r: FhirResource): Record<string, unknown> {
  return {
    id: r.id, type: code(r.type), status: str(r.status), outcome: str(r.outcome),
    serviceStart: day(obj(r.billablePeriod)?.start), serviceEnd: day(obj(r.billablePeriod)?.end), created: day(r.created),
    provider: display(r.provider), insurer: display(r.insurer),
    diagnoses: arr(r.diagnosis).map((d) => text(obj(d)?.diagnosisCodeableConcept)).filter(Boolean),
    lineCount: arr(r.item).length,
    billed: adjudicated(r.total, 'submitted'), planPaid: adjudicated(r.total, 'benefit') ?? amount(obj(r.payment)?.amount),
    memberOwes: adjudicated(r.total, 'memberliability'),
  };
}

/** claims_lines: one row per ExplanationOfBenefit.item. */
export function claimLineRows(r: FhirResource): Record<string, unknown>[] {
  return arr(r.item).map((it) => {
    const i = obj(it);
    return {
      claimId: r.id, sequence: num(i?.sequence), service: text(i?.productOrService), code: code(i?.productOrService),
      codeSystem: codeSystem(i?.productOrService), serviceDate: day(i?.servicedDate) ?? sortDateOf(r), quantity: num(obj(i?.quantity)?.value),
      billed: adjudicated(i?.adjudication, 'submitted'), allowed: adjudicated(i?.adjudication, 'eligible'),
      planPaid: adjudicated(i?.adjudication, 'benefit'), memberOwes: adjudicated(i?.adjudication, 'memberliability'),
    };
  });
}

/** demographics from the Patient resource. */
export function demographicsOf(p: FhirResource | undefined): Record<string, unknown> | null {
  if (!p) return null;
  const name = obj(arr(p.name)[0]);
  const address = obj(arr(p.address)[0]);
  const member = obj(arr(p.identifier).find((i) => code(obj(i)?.type) === 'MB')) ?? obj(arr(p.identifier)[0]);
  return {
    name: [...arr(name?.given), name?.family].filter((x) => typeof x === 'string').join(' ') || null,
    givenName: str(arr(name?.given)[0]), familyName: str(name?.family), birthDate: day(p.birthDate), gender: str(p.gender),
    city: str(address?.city), state: str(address?.state), postalCode: str(address?.postalCode), memberId: str(member?.value),
    payerPatientId: p.id,
  };
}
