/**
 * The prescriptions area's wiring (composition root): the pharmacy partner (the embedded one; a
 * real partner's adapter would be chosen here by configuration) and the pharmacy directory over
 * the pricing snapshot, when one is open.
 */
import type { Logger } from 'pino';
import type { Config } from '../../engine/core/config.ts';
import type { Clock } from '../../engine/ports/clock.ts';
import type { Db } from '../../engine/ports/db.ts';
import { EmbeddedPharmacyPartner } from '../../engine/prescriptions/adapters/partner.embedded.ts';
import type { PharmacyDirectory, PrescriptionsPorts } from '../../engine/prescriptions/prescriptions.ports.ts';

export function buildPrescriptionsPorts(o: { config: Config; db: Db; clock: Clock; log: Logger; pharmacies?: PharmacyDirectory }): PrescriptionsPorts {
  return {
    partner: new EmbeddedPharmacyPartner({ db: o.db, clock: o.clock, stepSeconds: o.config.pharmacy.stepSeconds, log: o.log }),
    ...(o.pharmacies ? { pharmacies: o.pharmacies } : {}),
    reconcileSeconds: o.config.pharmacy.reconcileSeconds,
  };
}
