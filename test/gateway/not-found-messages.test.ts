import { expect } from 'chai';
import { VIEW_IDS } from '../../shared/views.ts';
import { backendLabel } from './support/backend.ts';
import { startTestGateway, type TestGateway } from './support/gateway-fixture.ts';

// Each 404 of the catalog walk and the image call names what the path got wrong, read from the path's
// grammar (make › model › year › variant › view). Test catalog: Aurelia Vento 2024 has the variants
// base, gt (sports) and estate (top_down unpublished); 2023 one vehicle without variants; 2021 is unpublished.
describe(`404 messages name what was not found (${backendLabel()})`, () => {
  let gw: TestGateway;
  let all: string;
  let carsOnly: string;
  let sportsOnly: string;
  const V = '/v1/makes/aurelia/models/vento';
  const nine = VIEW_IDS.join(', ');
  const eight = VIEW_IDS.filter((v) => v !== 'top_down').join(', ');
  before(async () => {
    gw = await startTestGateway();
    all = (await gw.admin.customer()).key;
    carsOnly = (await gw.admin.customer({ categories: ['passenger-car'] })).key;
    sportsOnly = (await gw.admin.customer({ categories: ['sports'] })).key;
  });
  after(async () => {
    await gw?.close();
  });
  const expect404 = async (p: string, message: string, key = all) => {
    const a = await gw.getWithKey(key, p);
    expect(a.status, p).to.equal(404);
    expect(a.body, p).to.deep.equal({ error: 'not_found', message });
  };

  it('the make, then the model', async () => {
    await expect404('/v1/makes/nope', 'Make not found');
    await expect404('/v1/makes/nope/models/vento/2024/front', 'Make not found');
    await expect404('/v1/makes/aurelia/models/nope', 'Model not found');
    await expect404('/v1/makes/aurelia/models/nope/2024/base/front', 'Model not found');
  });

  it('a year segment that is not a year says so, and where the years are listed; the make and model are checked first', async () => {
    const msg = 'Year not found: "years" is not a year; the years of this model are listed at /v1/makes/aurelia/models/vento';
    await expect404(`${V}/years`, msg);
    await expect404(`${V}/years/front`, msg);
    await expect404(`${V}/years/base/front`, msg);
    await expect404('/v1/makes/nope/models/vento/years', 'Make not found');
    await expect404('/v1/makes/aurelia/models/nope/years', 'Model not found');
  });

  it('a year with nothing visible is "Year not found", whatever follows it', async () => {
    for (const rest of ['', '/front', '/nope', '/base/front']) {
      await expect404(`${V}/1999${rest}`, 'Year not found');
      await expect404(`${V}/2021${rest}`, 'Year not found');
    }
  });

  it('/{year}/{x} on a year of one vehicle without variants: x is an unknown view, and the vehicle\'s views are listed', async () => {
    await expect404(`${V}/2023/underside`, `View not found: "underside" is not a view of this vehicle (views: ${nine})`);
  });

  it('/{year}/{x} on a year of one named variant: neither a variant nor a view, both listed', async () => {
    await expect404(`${V}/2024/underside`, `No variant or view "underside" for this year (variants: gt; views: ${nine})`, sportsOnly);
  });

  it('/{year}/{x} on a year of several variants: an unknown variant (a view would need one first); only visible variants are offered', async () => {
    const a = await gw.getWithKey(all, `${V}/2024/underside`);
    expect(a.status).to.equal(404);
    expect(a.body.message).to.match(/^Variant not found: no variant "underside" for this year \(variants: (base|gt|estate), (base|gt|estate), (base|gt|estate)\)$/);
    for (const v of ['base', 'gt', 'estate']) expect(a.body.message).to.include(v);
    const cars = await gw.getWithKey(carsOnly, `${V}/2024/gt`);
    expect(cars.status).to.equal(404);
    expect(cars.body.message).to.match(/^Variant not found: no variant "gt" for this year \(variants: (base, estate|estate, base)\)$/);
  });

  it('/{year}/{variant}/{view}: an unknown variant lists the visible ones; a year without variants lists none', async () => {
    const a = await gw.getWithKey(carsOnly, `${V}/2024/sportt/front`);
    expect(a.body.message).to.match(/^Variant not found: no variant "sportt" for this year \(variants: (base, estate|estate, base)\)$/);
    await expect404(`${V}/2023/base/front`, 'Variant not found: no variant "base" for this year');
  });

  it('an unknown view lists the vehicle\'s published views; an unpublished view says it is not published', async () => {
    await expect404(`${V}/2024/estate/underside`, `View not found: "underside" is not a view of this vehicle (views: ${eight})`);
    await expect404(`${V}/2024/estate/top_down`, 'View not found: top_down is not published for this vehicle');
  });

  it('a view without the variant on a year of several variants asks for the variant', async () => {
    await expect404(`${V}/2024/front`, 'This year has several variants: put the variant slug before the view');
  });

  it('the codes and statuses around them are unchanged: a category outside the contract is still 403', async () => {
    const a = await gw.getWithKey(carsOnly, `${V}/2024/gt/front`);
    expect(a.status).to.equal(403);
    expect(a.body).to.deep.equal({ error: 'forbidden', message: 'Contract does not include this vehicle category' });
  });
});
