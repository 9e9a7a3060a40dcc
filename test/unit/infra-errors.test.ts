import { expect } from 'chai';
import { toAppError } from '../../src/shared/errors/error-handler';
import { isInfrastructureUnavailable } from '../../src/shared/errors/infra-errors';

describe('unit: infrastructure errors', () => {
  it('treats a write to a database socket just lost (raw EPIPE, as the driver passes it) as 503', () => {
    const epipe = Object.assign(new Error('This socket has been ended by the other party'), {
      code: 'EPIPE',
    });
    expect(isInfrastructureUnavailable(epipe)).to.equal(true);
    expect(toAppError(epipe).status).to.equal(503);
  });

  it('leaves other errors to the generic 500', () => {
    expect(isInfrastructureUnavailable(new Error('boom'))).to.equal(false);
    expect(toAppError(new TypeError('x is undefined')).status).to.equal(500);
  });
});
