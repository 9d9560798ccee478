/**
 * E8 (invoice) and E9 (payroll) commissioning. The seed decides the outcome:
 * `enabled` (already enabled), `succeed`, `fail` (ResultCode 304 in HTTP 200)
 * or `error` (E8: HTTP 500; E9: ResultCode 500 in HTTP 200, as the table says).
 * A company enabled once stays enabled and answers IsValid true again.
 */
import { authenticate, unauthorizedReply } from '../auth.js';
import { envelopeReply, type EmulatorRequest, type Reply } from '../http.js';
import type { EmulatorState } from '../state.js';

type Which = 'invoice' | 'payroll';

function commission(state: EmulatorState, req: EmulatorRequest, which: Which): Reply {
  const auth = authenticate(state, req.headers);
  if (!auth.ok) return unauthorizedReply(auth.companyText);
  const company = auth.company;
  const label = which === 'invoice' ? 'facturación electrónica' : 'nómina electrónica';
  if (company.enabled[which]) {
    return envelopeReply(
      200,
      200,
      true,
      `La empresa ${company.id} ya se encuentra habilitada para ${label}.`,
    );
  }
  const testId = req.url.searchParams.get('test-id');
  const set = testId === null || testId === '' ? '' : ` ${testId}`;
  switch (company.commissioning[which]) {
    case 'error':
      return which === 'invoice'
        ? envelopeReply(500, 500, false, null, ['Error procesando la habilitación.'])
        : envelopeReply(200, 500, false, 'Error procesando la habilitación.', [
            'Error procesando la habilitación.',
          ]);
    case 'fail':
      return envelopeReply(200, 304, false, 'Proceso terminado sin habilitar.', [
        `Regla: 304, Rechazo: El set de pruebas${set} no fue aceptado por la autoridad.`,
      ]);
    default:
      company.enabled[which] = true;
      state.changed();
      return envelopeReply(
        200,
        200,
        true,
        `Set de pruebas${set} aceptado: la empresa ${company.id} quedó habilitada para ${label}.`,
      );
  }
}

export function handleInvoiceCommissioning(state: EmulatorState, req: EmulatorRequest): Reply {
  return commission(state, req, 'invoice');
}

export function handlePayrollCommissioning(state: EmulatorState, req: EmulatorRequest): Reply {
  return commission(state, req, 'payroll');
}
