/**
 * From method + path to the operation and its handler. Paths come from the
 * shared endpoint table (every primary path and every alias), so the emulator
 * and the client cannot disagree on a URL.
 */
import { ENDPOINTS, OPERATION_IDS, matchEndpoint, type OperationId } from '../service/endpoints.js';
import type { EmulatorRequest, Reply } from './http.js';
import {
  handleInvoiceCommissioning,
  handlePayrollCommissioning,
} from './handlers/commissioning.js';
import { handleInvoice } from './handlers/invoice.js';
import { handleCreateRange, handleListRanges } from './handlers/numbering.js';
import { handlePayroll } from './handlers/payroll.js';
import { handlePosCommissioning, handlePosFile, handlePosJson } from './handlers/pos.js';
import { handleReceived } from './handlers/received.js';
import { handleAdjustmentNote, handleSupportDocument } from './handlers/support.js';
import type { EmulatorState } from './state.js';

export type Handler = (state: EmulatorState, req: EmulatorRequest) => Reply | Promise<Reply>;

export const HANDLERS: Readonly<Record<OperationId, Handler>> = {
  E1: handleInvoice,
  E2: handlePayroll,
  E3: handlePosFile,
  E4: handlePosJson,
  E5: handleSupportDocument,
  E6: handleAdjustmentNote,
  E7: handlePosCommissioning,
  E8: handleInvoiceCommissioning,
  E9: handlePayrollCommissioning,
  E10: handleListRanges,
  E11: handleCreateRange,
  E12: handleReceived,
};

export type RouteResult =
  | { kind: 'operation'; op: OperationId; params: EmulatorRequest['params'] }
  | { kind: 'method-not-allowed' }
  | { kind: 'not-found' };

const E3_PREFIX = ENDPOINTS.E3.primary.slice(0, ENDPOINTS.E3.primary.indexOf('{tipo}'));

export function route(method: string, pathname: string): RouteResult {
  const match = matchEndpoint(method, pathname);
  if (match !== undefined) return { kind: 'operation', op: match.op, params: match.params };
  const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  // An unknown E3 tipo still reaches E3, which answers the POS 400 record naming it.
  if (
    method === 'POST' &&
    path.startsWith(E3_PREFIX) &&
    !path.slice(E3_PREFIX.length).includes('/') &&
    path.length > E3_PREFIX.length
  ) {
    return {
      kind: 'operation',
      op: 'E3',
      params: { tipoAsSent: decodeURIComponent(path.slice(E3_PREFIX.length)) },
    };
  }
  const known = OPERATION_IDS.some(
    (op) => ENDPOINTS[op].primary === path || ENDPOINTS[op].alias === path,
  );
  return known ? { kind: 'method-not-allowed' } : { kind: 'not-found' };
}

/** A framework-style (Spring) error body: not an envelope. */
export function frameworkError(status: number, error: string, path: string): Reply {
  return {
    status,
    body: { timestamp: new Date().toISOString().replace('Z', '+00:00'), status, error, path },
  };
}
