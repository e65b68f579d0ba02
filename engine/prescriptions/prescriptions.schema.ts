/**
 * Prescription and pharmacy contracts (service-spec.md, Prescription order; Prescriptions). One
 * zod schema per contract (STYLE.md 2). The order is the spec's shape, every field; the list, the
 * pharmacy selection and the pharmacy search are "not shown" in the spec and designed here.
 */
import { z } from 'zod';
import { PRESCRIPTION_STATUSES } from './prescription-status.ts';

const Text = (max: number) => z.string().trim().min(1).max(max);
/** A US NPI: ten digits (CMS; the check digit is the pharmacy directory's business). */
export const NpiSchema = z.string().trim().regex(/^\d{10}$/, 'must be a 10-digit NPI');
const Zip5 = z.string().trim().regex(/^\d{5}$/, 'must be a 5-digit US ZIP code');

export const DrugSchema = z.object({
  name: z.string(),
  /** Drug Identification Number: a Canadian identifier, null on US orders (the spec lists it). */
  din: z.string().nullable(),
  strength: z.string(),
  form: z.string(),
});

export const PrescriptionItemSchema = z.object({
  prescriptionId: z.string(),
  drug: DrugSchema,
  quantity: z.number(),
  instructions: z.string(),
  hasRefill: z.boolean(),
  refillQuantity: z.number(),
});

export const TargetPharmacySchema = z.object({
  /** The pharmacy's NPI (US pharmacies are identified by NPI; the spec's field name is generic). */
  accreditationNumber: z.string(),
  companyName: z.string(),
  address: z.string().nullable(),
  address2: z.string().nullable(),
  city: z.string().nullable(),
  zip: z.string().nullable(),
  phone: z.string().nullable(),
  /** The pricing snapshot keeps no fax numbers: null until it does. */
  fax: z.string().nullable(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  /** From the patient's ZIP on their profile when known (great-circle, ZIP centroids). */
  distanceKm: z.number().nullable(),
});
export type TargetPharmacy = z.infer<typeof TargetPharmacySchema>;

export const PrescriptionOrderSchema = z.object({
  prescriptionOrderId: z.string(),
  status: z.enum(PRESCRIPTION_STATUSES).describe('UNKNOWN until the pharmacy partner reports; then RECEIVED, IN_PROGRESS, READY_FOR_PICKUP, and COMPLETED, CANCELLED or ERROR (final).'),
  timestamp: z.string().describe('When the clinician wrote the order.'),
  prescriptions: z.array(PrescriptionItemSchema),
  targetPharmacy: TargetPharmacySchema.nullable().describe('null when the clinician chose none (the partner routes it).'),
  // Beyond the spec's table: where the order came from and why it ended as it did.
  conversationId: z.string(),
  patientId: z.string(),
  statusReason: z.string().nullable().describe('Why an order is in ERROR or CANCELLED, as the partner said.'),
  updatedAt: z.string(),
});
export type PrescriptionOrder = z.infer<typeof PrescriptionOrderSchema>;

const PatientId = z.string().trim().min(1).max(64).optional()
  .describe('Only this family member\'s orders (GET /api/profile lists patients); omit for every patient on the account.');

export const ListPrescriptionsInputSchema = z.strictObject({
  patientId: PatientId,
  offset: z.number().int().min(0).max(1_000_000).default(0).describe('Paging: the previous page\'s nextOffset.'),
  limit: z.number().int().min(1).max(100).default(20).describe('Orders a page (at most 100).'),
});
export const ListPrescriptionsOutputSchema = z.object({
  prescriptionOrders: z.array(PrescriptionOrderSchema).describe('Newest first.'),
  count: z.number().int().describe('Orders in all (every page).'),
  nextOffset: z.number().int().nullable().describe('Offset of the next page; null on the last.'),
});

const OrderId = z.string().trim().min(1).max(100).describe('The prescriptionOrderId.');
export const PrescriptionRefSchema = z.strictObject({ id: OrderId });

export const SelectPharmacyInputSchema = z.strictObject({
  id: OrderId,
  pharmacyId: z.string().trim().min(1).max(100).optional().describe('Legacy fax-based flow only.'),
  accreditationNumber: z.string().trim().min(1).max(100).optional().describe('Legacy fax-based flow only.'),
});
/** Never returned for US orders (MANAGED_EXTERNALLY); the shape a legacy selection would answer. */
export const SelectPharmacyOutputSchema = z.object({ success: z.boolean(), prescriptionOrderId: z.string() });

export const PrescribeInputSchema = z.strictObject({
  conversationId: z.string().trim().min(1).max(100).describe('The conversation of your open visit.'),
  drug: z.strictObject({
    name: Text(200).describe('Drug name, e.g. Amoxicillin.'),
    strength: Text(100).describe('e.g. 500 mg.'),
    form: Text(100).describe('e.g. capsule.'),
  }),
  quantity: z.number().positive().max(10_000).describe('Units to dispense.'),
  instructions: Text(1000).describe('Directions for the patient (sig).'),
  hasRefill: z.boolean().default(false),
  refillQuantity: z.number().int().min(0).max(99).default(0).describe('Refills allowed (0 without refills).'),
  pharmacyNpi: NpiSchema.optional().describe('A pharmacy from GET /api/pharmacies (its accreditationNumber); omit to let the partner route it.'),
});
export type PrescribeInput = z.infer<typeof PrescribeInputSchema>;
export const PrescribeOutputSchema = z.object({ success: z.boolean(), prescriptionOrder: PrescriptionOrderSchema });

/** The orders written in a conversation's visits, as the provider API and the console show them. */
export const VisitPrescriptionsOutputSchema = z.object({
  prescriptionOrders: z.array(PrescriptionOrderSchema).describe('Newest first (at most 100).'),
});

export const SearchPharmaciesInputSchema = z.strictObject({
  zip: Zip5.optional().describe('Near this US ZIP (its centroid).'),
  latitude: z.number().min(-90).max(90).optional().describe('Near this point (with longitude).'),
  longitude: z.number().min(-180).max(180).optional().describe('Near this point (with latitude).'),
  name: z.string().trim().min(2).max(100).optional().describe('Words of the pharmacy\'s name.'),
  radiusKm: z.number().positive().max(200).default(25).describe('With zip or latitude/longitude: how far to look (default 25 km).'),
  offset: z.number().int().min(0).max(10_000).default(0),
  limit: z.number().int().min(1).max(100).default(20),
});
export type SearchPharmaciesInput = z.infer<typeof SearchPharmaciesInputSchema>;

export const PharmacySchema = TargetPharmacySchema.extend({
  npi: z.string(),
  state: z.string().nullable(),
  taxonomy: z.string().nullable().describe('NUCC taxonomy code, e.g. 3336C0003X (Community/Retail Pharmacy).'),
});
export type Pharmacy = z.infer<typeof PharmacySchema>;

export const SearchPharmaciesOutputSchema = z.object({
  pharmacies: z.array(PharmacySchema).describe('Nearest first with a place; by name otherwise.'),
  count: z.number().int().describe('Matches in all (every page).'),
  nextOffset: z.number().int().nullable(),
  origin: z.object({ latitude: z.number(), longitude: z.number(), from: z.enum(['zip', 'coordinates']) }).nullable(),
  dataVintage: z.string().nullable().describe('The NPPES snapshot the directory comes from.'),
});
