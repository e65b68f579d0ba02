/**
 * Provider records (CMS in-network schema: provider reference object, providers object, tax
 * identifier object), split from assembler.ts: pure functions over one materialised value.
 */
import type { GroupRecord, ProviderReferenceRecord } from './records.ts';
import * as N from './normalize.ts';
import { unknownKeys } from './assemble-toc.ts';

type Warn = N.Warn;

const GROUP_KEYS = new Set(['npi', 'tin', 'network_name']);
const TIN_KEYS = new Set(['type', 'value', 'business_name']);
const REF_KEYS = new Set(['provider_group_id', 'provider_groups', 'network_name', 'location']);
const TIN_TYPES = new Set(['ein', 'npi']);

/** provider_groups[] -> GroupRecords (entries that are not objects are skipped with warnings). */
export function groups(raw: unknown, path: string, warn: Warn): GroupRecord[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    warn('invalid_value', path, N.sample(raw));
    return [];
  }
  if (raw.length === 0) warn('empty_array', path, '[]');
  const out: GroupRecord[] = [];
  for (const g of raw) {
    const rec = group(g, `${path}[]`, warn);
    if (rec) out.push(rec);
  }
  return out;
}

/** One provider group: NPIs (TIN-only when [0]), TIN, business and network names. */
export function group(g: unknown, path: string, warn: Warn): GroupRecord | null {
  if (!N.isObj(g)) {
    warn('invalid_value', path, N.sample(g));
    warn('skipped_record', path, 'a provider group that is not an object');
    return null;
  }
  unknownKeys(g, GROUP_KEYS, path, warn);
  const tin = g.tin;
  let tinType: string | null = null, tinValue: string | null = null, businessName: string | null = null;
  if (N.isObj(tin)) {
    unknownKeys(tin, TIN_KEYS, `${path}.tin`, warn);
    tinType = N.enumLower(tin.type, TIN_TYPES, `${path}.tin.type`, warn);
    tinValue = N.str(tin.value, `${path}.tin.value`, warn);
    businessName = N.str(tin.business_name, `${path}.tin.business_name`, warn);
  } else warn('missing_field', path, 'tin');
  return {
    tinType, tinValue, businessName,
    npis: N.npis(g.npi, `${path}.npi`, warn),
    networkNames: N.strings(g.network_name, `${path}.network_name`, warn, false) ?? [],
  };
}

/** One provider_references[] entry as a record; null (with warnings) when it has no usable id. */
export function providerReference(e: unknown, warn: Warn): ProviderReferenceRecord | null {
  const path = 'provider_references[]';
  if (!N.isObj(e)) {
    warn('skipped_record', path, N.sample(e));
    return null;
  }
  unknownKeys(e, REF_KEYS, path, warn);
  const id = e.provider_group_id === undefined ? null : N.refId(e.provider_group_id, `${path}.provider_group_id`, warn);
  if (id === null) {
    warn('missing_field', path, 'provider_group_id');
    warn('skipped_record', path, N.sample(e));
    return null;
  }
  if (!Number.isInteger(Number(id))) warn('decimal_group_id', `${path}.provider_group_id`, id);
  const location = N.str(e.location, `${path}.location`, warn);
  if (location !== null) warn('remote_reference', `${path}.location`, location);
  const gs = groups(e.provider_groups, `${path}.provider_groups`, warn);
  if (location === null && e.provider_groups === undefined) warn('missing_field', path, 'provider_groups');
  return {
    refId: id, groups: gs, location,
    networkNames: N.strings(e.network_name, `${path}.network_name`, warn, false) ?? [],
  };
}
