import { expect } from 'chai';
import { recordIdOf, recordTypeOf, summariseChanges } from '../../src/audit/audit-summary';

describe('audit summaries (unit)', () => {
  it('keeps each field set, hides secrets and the CSRF token, shortens long values', () => {
    const long = 'x'.repeat(500);
    expect(
      summariseChanges({
        url: 'https://a.test',
        password: 'hunter22',
        pass: 'p',
        secret: 's',
        current: 'c',
        _csrf: 't',
        description: long,
        geotarget: [{ location: 'DE', link: 'https://de.test' }],
        public: true,
      }),
    ).to.deep.equal({
      url: 'https://a.test',
      password: '[secret]',
      pass: '[secret]',
      secret: '[secret]',
      current: '[secret]',
      description: `${'x'.repeat(200)}…`,
      geotarget: '[{"location":"DE","link":"https://de.test"}]',
      public: true,
    });
    expect(summariseChanges(undefined)).to.deep.equal({});
    expect(summariseChanges([1, 2])).to.deep.equal({});
  });

  it('names the record type and id from the route', () => {
    expect(recordTypeOf('/api/url/:id/update')).to.equal('link');
    expect(recordTypeOf('/app/api/qr/:id/delete')).to.equal('qr');
    expect(recordTypeOf('/app/account/email')).to.equal('account');
    expect(recordTypeOf('/api/keys/add')).to.equal('key');
    expect(recordIdOf({ id: '7' }, undefined)).to.equal(7);
    expect(recordIdOf({ campaignid: '3', linkid: '9' }, undefined)).to.equal(3);
    expect(recordIdOf({}, { error: 0, id: 12 })).to.equal(12);
    expect(recordIdOf({}, { error: 0, message: 'ok' })).to.equal(null);
  });
});
