/**
 * The patient's side of prescriptions (service-spec.md, Prescriptions) and the pharmacy search.
 * Orders are read-only here: US orders are fulfilled by the external pharmacy partner, so
 * selecting a pharmacy is refused with MANAGED_EXTERNALLY. An account reads only its own orders
 * (its family members' included: they are patients on the account); another's answer 404.
 */
import { defineOperation, type AnyOperation } from '../core/operation.ts';
import { AppError } from '../core/errors.ts';
import type { HandlerContext } from '../core/context.ts';
import { requireAccount } from '../profile/onboarding.ts';
import { listOrders, loadOrder, orderViews, type OrderRow } from './prescription-store.ts';
import { prescriptionsPorts } from './prescribe.operation.ts';
import {
  ListPrescriptionsInputSchema, ListPrescriptionsOutputSchema, PrescriptionOrderSchema, PrescriptionRefSchema, SearchPharmaciesInputSchema,
  SearchPharmaciesOutputSchema, SelectPharmacyInputSchema, SelectPharmacyOutputSchema,
} from './prescriptions.schema.ts';

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/** The caller's order, or 404 (another account's order is indistinguishable from none). */
async function ownOrder(ctx: HandlerContext, id: string): Promise<OrderRow> {
  const { account } = await requireAccount(ctx);
  const o = await loadOrder(ctx.ports.db, id);
  if (!o || o.account_id !== account.id) throw new AppError('not_found', 'No prescription order with this id on your account.', { field: 'id' });
  return o;
}

export const getPrescriptionsOp = defineOperation({
  name: 'get_prescriptions',
  title: 'Get prescriptions',
  description: 'The prescription orders clinicians wrote for the user (and family members on the account), newest first, each with its drug, quantity, instructions, refills, target pharmacy and status. Status is UNKNOWN until the external pharmacy partner reports, then RECEIVED, IN_PROGRESS, READY_FOR_PICKUP and finally COMPLETED, CANCELLED or ERROR (statusReason says why). Read-only: the partner fulfils US orders; pharmacy selection is not possible.',
  input: ListPrescriptionsInputSchema, output: ListPrescriptionsOutputSchema, annotations: READ, auth: 'required',
  rest: [{ method: 'GET', path: '/api/prescriptions' }],
  handler: async (input, ctx) => {
    const { store, account } = await requireAccount(ctx);
    if (input.patientId !== undefined && !(await store.getPatient(account.id, input.patientId))) {
      throw new AppError('not_found', 'No patient with this patientId on your account; GET /api/profile lists them.', { field: 'patientId' });
    }
    const page = await listOrders(ctx.ports.db, account.id, { ...(input.patientId !== undefined ? { patientId: input.patientId } : {}), offset: input.offset, limit: input.limit });
    const end = input.offset + page.rows.length;
    return { prescriptionOrders: await orderViews(ctx.ports.db, page.rows), count: page.count, nextOffset: end < page.count && page.rows.length ? end : null };
  },
});

export const getPrescriptionOp = defineOperation({
  name: 'get_prescription_order',
  title: 'Get one prescription order',
  description: 'One prescription order by its prescriptionOrderId (from get_prescriptions or a prescription_added / prescription_updated event).',
  input: PrescriptionRefSchema, output: PrescriptionOrderSchema, annotations: READ, auth: 'required',
  rest: [{ method: 'GET', path: '/api/prescriptions/:id' }],
  handler: async (input, ctx) => (await orderViews(ctx.ports.db, [await ownOrder(ctx, input.id)]))[0]!,
});

export const selectPharmacyOp = defineOperation({
  name: 'select_pharmacy',
  title: 'Select a pharmacy (legacy)',
  description: 'Legacy fax-based flow only. US orders are fulfilled by the external pharmacy partner and refuse it with MANAGED_EXTERNALLY: tell the user the pharmacy partner handles fulfilment.',
  input: SelectPharmacyInputSchema, output: SelectPharmacyOutputSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false }, auth: 'required', mcp: false,
  rest: [{ method: 'POST', path: '/api/prescriptions/:id/pharmacy' }],
  handler: async (input, ctx) => {
    const o = await ownOrder(ctx, input.id);
    // Every order here goes to a US pharmacy partner (care is served in US-CA only).
    throw new AppError('MANAGED_EXTERNALLY', 'This is a US prescription: the external pharmacy partner handles fulfilment, so a pharmacy cannot be selected here.', {
      code: 'MANAGED_EXTERNALLY', extra: { prescriptionOrderId: o.id, status: o.status },
    });
  },
});

export const searchPharmaciesOp = defineOperation({
  name: 'search_pharmacies',
  title: 'Search pharmacies',
  description: 'Community and retail pharmacies from the NPPES registry, near a ZIP or a latitude/longitude (nearest first, distanceKm from there, within radiusKm) and/or by name. Give zip, latitude with longitude, or name. Paged with offset / nextOffset.',
  input: SearchPharmaciesInputSchema, output: SearchPharmaciesOutputSchema, annotations: READ, auth: 'required',
  rest: [{ method: 'GET', path: '/api/pharmacies' }],
  handler: async (input, ctx) => {
    const hasPoint = input.latitude !== undefined || input.longitude !== undefined;
    if (input.latitude !== undefined && input.longitude === undefined) throw new AppError('invalid_request', 'latitude needs longitude.', { field: 'longitude' });
    if (input.longitude !== undefined && input.latitude === undefined) throw new AppError('invalid_request', 'longitude needs latitude.', { field: 'latitude' });
    if (input.zip === undefined && !hasPoint && input.name === undefined) {
      throw new AppError('invalid_request', 'Give zip, latitude and longitude, or name.', { field: 'zip' });
    }
    if (input.name !== undefined && !/[a-z0-9]/i.test(input.name)) throw new AppError('invalid_request', 'name needs a letter or a digit.', { field: 'name' });
    if (input.zip !== undefined && hasPoint) throw new AppError('invalid_request', 'Give zip or latitude/longitude, not both.', { field: 'zip' });
    const dir = prescriptionsPorts(ctx).pharmacies;
    if (!dir || dir.dataVintage() === null) throw new AppError('pricing_data_unavailable', 'The pharmacy directory (the pricing snapshot) is not available yet; retry later.');
    let origin: { latitude: number; longitude: number; from: 'zip' | 'coordinates' } | null = null;
    if (input.zip !== undefined) {
      const c = await dir.zipCentroid(input.zip);
      if (!c) throw new AppError('invalid_request', `ZIP ${input.zip} is not a known US ZIP code.`, { field: 'zip' });
      origin = { ...c, from: 'zip' };
    } else if (input.latitude !== undefined && input.longitude !== undefined) {
      origin = { latitude: input.latitude, longitude: input.longitude, from: 'coordinates' };
    }
    const { rows, count } = await dir.search({
      origin: origin ? { latitude: origin.latitude, longitude: origin.longitude } : null,
      radiusKm: input.radiusKm, offset: input.offset, limit: input.limit, ...(input.name !== undefined ? { name: input.name } : {}),
    });
    const end = input.offset + rows.length;
    return { pharmacies: rows, count, nextOffset: rows.length && end < count ? end : null, origin, dataVintage: dir.dataVintage() };
  },
});

export const prescriptionsOperations: AnyOperation[] = [getPrescriptionsOp, getPrescriptionOp, selectPharmacyOp, searchPharmaciesOp];
