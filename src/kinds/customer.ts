/**
 * The other party of a document as an operator searches for it (the console's "customer id"): the
 * descriptors' `customer` read it with these helpers. Bounded: a customer id is a tax id or a
 * national id, so anything longer than a few dozen characters is not one and is not kept.
 */
import { obj } from '../validate/access.js';
import { firstFilled } from './keys.js';

/** Longest identification kept (NIT, cédula, passport numbers are far shorter). */
export const CUSTOMER_ID_MAX = 40;

/** A filled identification, trimmed, or undefined when absent, empty or too long to be one. */
export function customerId(value: unknown): string | undefined {
  const id = firstFilled(value);
  return id === undefined || id.length > CUSTOMER_ID_MAX ? undefined : id;
}

/** `<Party>.Identification.DocumentNumber` of the first named party that has one (E1, E5, E6). */
export function partyIdentification(request: unknown, ...parties: string[]): string | undefined {
  const r = obj(request);
  for (const party of parties) {
    const id = customerId(obj(obj(r?.[party])?.Identification)?.DocumentNumber);
    if (id !== undefined) return id;
  }
  return undefined;
}
