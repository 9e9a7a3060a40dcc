import { expect } from 'chai';
import {
  DEFAULT_LIMIT,
  pageInfo,
  pageQuerySchema,
  skipFor,
} from '../../src/shared/http/pagination';
import { listEnvelope } from '../../src/shared/http/responses';

describe('pagination maths (pure)', () => {
  it('defaults to page 1 of 15', () => {
    expect(pageQuerySchema.validate({}).value).to.deep.equal({ limit: DEFAULT_LIMIT, page: 1 });
    expect(DEFAULT_LIMIT).to.equal(15);
  });

  it('coerces numeric strings and refuses limits outside 1..100 and pages below 1', () => {
    expect(pageQuerySchema.validate({ limit: '100', page: '3' }).value).to.deep.equal({
      limit: 100,
      page: 3,
    });
    for (const bad of [
      { limit: '0' },
      { limit: '101' },
      { limit: 'ten' },
      { limit: '1.5' },
      { page: '0' },
      { page: '-1' },
      { page: 'x' },
    ]) {
      expect(pageQuerySchema.validate(bad).error, JSON.stringify(bad)).to.be.instanceOf(Error);
    }
  });

  it('computes the envelope numbers', () => {
    expect(pageInfo(31, { page: 1, limit: 15 })).to.deep.equal({
      result: 31,
      perpage: 15,
      currentpage: 1,
      nextpage: 2,
      maxpage: 3,
    });
    expect(pageInfo(31, { page: 3, limit: 15 })).to.deep.equal({
      result: 31,
      perpage: 15,
      currentpage: 3,
      nextpage: 3,
      maxpage: 3,
    });
    expect(pageInfo(30, { page: 2, limit: 15 }).maxpage).to.equal(2);
  });

  it('has one page, not zero, when there is nothing', () => {
    expect(pageInfo(0, { page: 1, limit: 15 })).to.deep.equal({
      result: 0,
      perpage: 15,
      currentpage: 1,
      nextpage: 1,
      maxpage: 1,
    });
  });

  it('keeps nextpage at maxpage for a page past the end', () => {
    expect(pageInfo(5, { page: 9, limit: 15 })).to.deep.equal({
      result: 5,
      perpage: 15,
      currentpage: 9,
      nextpage: 1,
      maxpage: 1,
    });
  });

  it('skips the rows of earlier pages', () => {
    expect(skipFor({ page: 1, limit: 15 })).to.equal(0);
    expect(skipFor({ page: 4, limit: 10 })).to.equal(30);
  });

  it('writes the list envelope with error as the string "0"', () => {
    expect(listEnvelope('things', [{ id: 1 }], 1, { page: 1, limit: 15 })).to.deep.equal({
      error: '0',
      data: {
        result: 1,
        perpage: 15,
        currentpage: 1,
        nextpage: 1,
        maxpage: 1,
        things: [{ id: 1 }],
      },
    });
  });
});
