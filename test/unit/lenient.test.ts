import { expect } from 'chai';
import Joi from 'joi';
import { blankStripper } from '../../src/shared/http/lenient';

describe('unit: GemPixel-lenient blanks', () => {
  const schema = Joi.object({
    url: Joi.string().required(),
    title: Joi.string().allow(''),
    expiry: Joi.string().allow(null),
    starred: Joi.boolean(),
    locked: Joi.any().forbidden(),
  });
  const strip = blankStripper(schema);

  it('drops "" and null of optional fields whose schema gives them no meaning', () => {
    expect(strip({ url: 'u', starred: '' })).to.deep.equal({ url: 'u' });
    expect(strip({ url: 'u', starred: null })).to.deep.equal({ url: 'u' });
    expect(strip({ url: 'u', title: null, expiry: '' })).to.deep.equal({ url: 'u' });
  });

  it('keeps a blank the field allows, and every blank of a required or forbidden field', () => {
    expect(strip({ url: '', title: '', expiry: null, locked: null })).to.deep.equal({
      url: '',
      title: '',
      expiry: null,
      locked: null,
    });
  });

  it('leaves unknown fields and other values for the schema to judge, and never mutates', () => {
    const input = { url: 'u', titel: '', starred: false, title: 0 };
    expect(strip(input)).to.equal(input);
    const blank = { url: 'u', starred: '' };
    strip(blank);
    expect(blank).to.deep.equal({ url: 'u', starred: '' });
  });

  it('leaves non-object schemas alone', () => {
    const value = { a: '' };
    expect(blankStripper(Joi.string())(value)).to.equal(value);
  });
});
