/**
 * Table-of-contents, plan and allowed-amounts records (CMS schemas table-of-contents and
 * allowed-amounts, 1.x and 2.x), split from assembler.ts: pure functions over one materialised
 * element, emitting through the sink with the assembler's warning counter.
 */
import type { PlanRecord, TicSink } from './records.ts';
import * as N from './normalize.ts';

type Warn = N.Warn;

/** What these functions need from the assembler. */
export interface Ctx {
  warn: Warn;
  sink: TicSink;
  fail(message: string, reason: 'wrong_type' | 'wrong_kind'): never;
}

const PLAN_KEYS = new Set(['plan_name', 'plan_id_type', 'plan_id', 'plan_market_type', 'plan_sponsor_name', 'issuer_name']);
const STRUCT_KEYS = new Set(['reporting_plans', 'in_network_files', 'allowed_amount_file']);
const FILE_KEYS = new Set(['description', 'location']);
const OON_KEYS = new Set(['name', 'billing_code_type', 'billing_code_type_version', 'billing_code', 'description', 'allowed_amounts']);
const AA_KEYS = new Set(['tin', 'service_code', 'billing_class', 'setting', 'payments']);
const PAY_KEYS = new Set(['allowed_amount', 'billing_code_modifier', 'providers']);
const PROV_KEYS = new Set(['billed_charge', 'npi']);
const TIN_TYPES = new Set(['ein', 'npi']);

/** Warns `unknown_field` for every key of `o` not in `known`. */
export function unknownKeys(o: Record<string, unknown>, known: ReadonlySet<string>, path: string, warn: Warn): void {
  for (const k in o) if (!known.has(k)) warn('unknown_field', path, k);
}

/** A reporting_plans[] entry as a PlanRecord (null, with a warning, when not an object). */
export function plan(raw: unknown, path: string, warn: Warn): PlanRecord | null {
  if (!N.isObj(raw)) {
    warn('skipped_record', path, N.sample(raw));
    return null;
  }
  return planOf(raw, path, true, warn);
}

/** Plan fields of an object (a reporting plan or a file header). */
export function planOf(o: Record<string, unknown>, path: string, checkKeys: boolean, warn: Warn): PlanRecord {
  if (checkKeys) unknownKeys(o, PLAN_KEYS, path, warn);
  const w = warn;
  const idType = N.str(o.plan_id_type, `${path}.plan_id_type`, w);
  const market = N.str(o.plan_market_type, `${path}.plan_market_type`, w);
  return {
    planName: N.str(o.plan_name, `${path}.plan_name`, w),
    planIdType: idType === null ? null : idType.toUpperCase(),
    planId: N.str(o.plan_id, `${path}.plan_id`, w),
    planMarketType: market === null ? null : market.toLowerCase(),
    planSponsorName: N.str(o.plan_sponsor_name, `${path}.plan_sponsor_name`, w),
    issuerName: N.str(o.issuer_name, `${path}.issuer_name`, w),
  };
}

function fileLocation(raw: unknown, path: string, warn: Warn): { description: string | null; location: string } | null {
  if (!N.isObj(raw)) {
    warn('invalid_value', path, N.sample(raw));
    return null;
  }
  unknownKeys(raw, FILE_KEYS, path, warn);
  const location = N.str(raw.location, `${path}.location`, warn);
  if (location === null) {
    warn('missing_field', path, 'location');
    return null;
  }
  return { description: N.str(raw.description, `${path}.description`, warn), location };
}

/** One table-of-contents reporting_structure[] entry -> sink.tocStructure. */
export function tocStructure(e: unknown, ctx: Ctx): void {
const warn = ctx.warn;
  const path = 'reporting_structure[]';
  if (!N.isObj(e)) {
    warn('skipped_record', path, N.sample(e));
    return;
  }
  unknownKeys(e, STRUCT_KEYS, path, warn);
  const plans: PlanRecord[] = [];
  if (Array.isArray(e.reporting_plans)) {
    for (const p of e.reporting_plans) {
      const rec = plan(p, `${path}.reporting_plans[]`, warn);
      if (rec) plans.push(rec);
    }
  }
  if (plans.length === 0) warn('missing_field', path, 'reporting_plans');
  const inNetworkFiles: { description: string | null; location: string }[] = [];
  const rawFiles = e.in_network_files;
  if (rawFiles !== undefined && rawFiles !== null) {
    const arr = Array.isArray(rawFiles) ? rawFiles : [rawFiles];
    for (const f of arr) {
      const loc = fileLocation(f, `${path}.in_network_files[]`, warn);
      if (loc) inNetworkFiles.push(loc);
    }
  }
  let aa = e.allowed_amount_file;
  if (Array.isArray(aa)) { // some publishers write a list; the schema says one object
    warn('type_coerced', `${path}.allowed_amount_file`, N.sample(aa));
    aa = aa[0];
  }
  const allowedAmountFile = aa === undefined || aa === null ? null : fileLocation(aa, `${path}.allowed_amount_file`, warn);
  ctx.sink.tocStructure({ plans, inNetworkFiles, allowedAmountFile });
}

/** One allowed-amounts out_of_network[] item -> sink.allowedAmount per provider payment. */
export function outOfNetwork(e: unknown, ctx: Ctx): void {
const warn = ctx.warn;
  const path = 'out_of_network[]';
  if (!N.isObj(e)) {
    warn('skipped_record', path, N.sample(e));
    return;
  }
  const w = warn;
  unknownKeys(e, OON_KEYS, path, warn);
  const type = N.codeType(e.billing_code_type, `${path}.billing_code_type`, w);
  const code = N.billingCode(type ?? '', e.billing_code, `${path}.billing_code`, w);
  if (type === null || code === null) {
    w('missing_field', path, type === null ? 'billing_code_type' : 'billing_code');
    w('skipped_record', path, N.sample(e.name ?? e));
    return;
  }
  const name = N.str(e.name, `${path}.name`, w);
  const entries = Array.isArray(e.allowed_amounts) ? e.allowed_amounts : [];
  for (const a of entries) {
    if (!N.isObj(a)) continue;
    const ap = `${path}.allowed_amounts[]`;
    unknownKeys(a, AA_KEYS, ap, warn);
    const tin = N.isObj(a.tin) ? a.tin : {};
    const base = {
      billingCodeType: type, billingCode: code, name,
      tinType: N.enumLower(tin.type, TIN_TYPES, `${ap}.tin.type`, w),
      tinValue: N.str(tin.value, `${ap}.tin.value`, w),
      serviceCode: N.serviceCodes(a.service_code, `${ap}.service_code`, w),
      billingClass: N.enumLower(a.billing_class, N.BILLING_CLASSES, `${ap}.billing_class`, w),
      setting: N.enumLower(a.setting, N.SETTINGS, `${ap}.setting`, w),
    };
    const payments = Array.isArray(a.payments) ? a.payments : [];
    for (const pay of payments) {
      if (!N.isObj(pay)) continue;
      const pp = `${ap}.payments[]`;
      unknownKeys(pay, PAY_KEYS, pp, warn);
      if (typeof pay.allowed_amount === 'object' && pay.allowed_amount !== null) ctx.fail('allowed_amount is not a number', 'wrong_type');
      const amount = N.num(pay.allowed_amount, `${pp}.allowed_amount`, w);
      if (amount === null) {
        w('missing_field', pp, 'allowed_amount');
        w('skipped_record', pp, N.sample(pay));
        continue;
      }
      const modifiers = N.strings(pay.billing_code_modifier, `${pp}.billing_code_modifier`, w);
      const providers = Array.isArray(pay.providers) ? pay.providers : [];
      if (providers.length === 0) {
        ctx.sink.allowedAmount({ ...base, allowedAmount: amount, billingCodeModifier: modifiers, npis: [], billedCharge: null });
        continue;
      }
      for (const pv of providers) {
        if (!N.isObj(pv)) continue;
        unknownKeys(pv, PROV_KEYS, `${pp}.providers[]`, warn);
        const npis = Array.isArray(pv.npi) ? pv.npi.filter((n): n is number => typeof n === 'number' && n > 0)
          : typeof pv.npi === 'number' ? [pv.npi] : [];
        ctx.sink.allowedAmount({
          ...base, allowedAmount: amount, billingCodeModifier: modifiers, npis,
          billedCharge: N.num(pv.billed_charge, `${pp}.providers[].billed_charge`, w),
        });
      }
    }
  }
}
