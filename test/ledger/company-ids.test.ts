/** The service company id each company's files are taken under (ledger/company-ids.ts), on both backends. */
import { expect, it } from 'vitest';
import { describeBackends } from './backends.js';

describeBackends('company ids', (backend) => {
  it('records ids, rewrites only those that change, and keeps them across a reopen', async () => {
    const ledger = await backend.open();
    expect(await ledger.companyIds(['main', 'other'])).toEqual(new Map());
    await ledger.recordCompanyIds([
      { alias: 'main', id: 1001 },
      { alias: 'other', id: 1002 },
    ]);
    await ledger.recordCompanyIds([{ alias: 'main', id: 1003 }]);
    await ledger.close();
    const reopened = await backend.reopen(ledger);
    expect(await reopened.companyIds(['main', 'other', 'third'])).toEqual(
      new Map([
        ['main', 1003],
        ['other', 1002],
      ]),
    );
    await reopened.close();
  });
});
