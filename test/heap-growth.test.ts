import { expect } from 'chai';
import { forkExecArgv, HEAP_GROWTH_FLAG } from '../src/shared/infra/heap-growth';

describe('npm start: the node flags of the API and the worker', () => {
  it("are the launcher's own, plus the heap's growth", () => {
    expect(forkExecArgv(['--import', 'tsx'])).to.deep.equal(['--import', 'tsx', HEAP_GROWTH_FLAG]);
    expect(forkExecArgv([])).to.deep.equal([HEAP_GROWTH_FLAG]);
  });

  it('keep a heap growth the launcher was given, in either spelling', () => {
    for (const given of ['--heap-growing-percent=100', '--heap_growing_percent=100']) {
      expect(forkExecArgv(['--cpu-prof', given])).to.deep.equal(['--cpu-prof', given]);
    }
  });
});
