/**
 * The MCP text content of a network-status answer (issue 37, item 9): a short summary in words
 * beside the full answer in structuredContent, so a tool result does not carry the answer twice.
 * It names where the full answer is and repeats what must never be lost: the plan basis, each
 * match's network status and price, the asks and the disclaimer.
 */
import type { NetworkStatusResponse } from './pricing.schema.ts';

const money = (n: number): string => `$${n.toFixed(2)}`;

/** One line per match (at most 10), then basis, asks and disclaimer. */
export function networkStatusSummary(r: NetworkStatusResponse): string {
  const lines: string[] = [`network-status: ${r.matches.length} match${r.matches.length === 1 ? '' : 'es'}${r.service ? ` for ${r.service.code} (${r.service.name})` : ''}. The full answer is in structuredContent; relay its notes as written.`];
  for (const m of r.matches.slice(0, 10)) {
    const price = m.rate !== null ? `rate ${money(m.rate)}` : m.rateRange ? `range ${money(m.rateRange.min)}-${money(m.rateRange.max)}` : 'no published rate';
    lines.push(`- ${m.name} (NPI ${m.npi}): inNetwork ${String(m.inNetwork)} (${m.networkStatus})${r.service ? `, ${price}` : ''}.`);
  }
  if (r.matches.length > 10) lines.push(`- … ${r.matches.length - 10} more in structuredContent.matches.`);
  lines.push(`Plan basis: ${r.plan.basis}`);
  for (const a of r.needsMoreInfo) lines.push(`Ask (${a.field}): ${a.ask}`);
  lines.push(`Disclaimer: ${r.disclaimer}`);
  return lines.join('\n');
}
