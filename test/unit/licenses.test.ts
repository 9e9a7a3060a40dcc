import { expect } from 'chai';
import {
  findCopyleft,
  findUnknownLicences,
  isSpdxExpression,
  requiresCopyleft,
} from '../../scripts/check-licenses';

describe('unit: licence check', () => {
  it('refuses GPL and AGPL of any version, alone or required with another licence', () => {
    for (const spdx of [
      'AGPL-3.0',
      'AGPL-3.0-or-later',
      'GPL-2.0-only',
      'GPL-3.0+',
      'MIT AND GPL-2.0',
    ])
      expect(requiresCopyleft(spdx), spdx).to.equal(true);
  });

  it('allows permissive licences, LGPL, and a choice that includes a permissive one', () => {
    for (const spdx of [
      'MIT',
      'Apache-2.0',
      'ISC',
      'LGPL-3.0-or-later',
      '(MIT OR GPL-3.0)',
      'BSD-3-Clause',
    ])
      expect(requiresCopyleft(spdx), spdx).to.equal(false);
  });

  it('checks what production installs, not the dev toolchain', () => {
    const offenders = findCopyleft({
      packages: {
        '': { license: 'MIT' },
        'node_modules/ua-parser-js': { license: 'AGPL-3.0-or-later' },
        'node_modules/some-dev-tool': { license: 'GPL-3.0', dev: true },
        'node_modules/sharp/node_modules/@img/sharp-libvips': { license: 'LGPL-3.0-or-later' },
      },
    });
    expect(offenders).to.deep.equal(['ua-parser-js: AGPL-3.0-or-later']);
  });
});

describe('unit: licence check, strict (issue 29, I)', () => {
  it('reads SPDX expressions and refuses what is not one', () => {
    expect(isSpdxExpression('MIT')).to.equal(true);
    expect(isSpdxExpression('(MIT OR Apache-2.0)')).to.equal(true);
    expect(isSpdxExpression('Apache-2.0 WITH LLVM-exception')).to.equal(true);
    expect(isSpdxExpression('SEE LICENSE IN LICENSE.md')).to.equal(false);
    expect(isSpdxExpression('')).to.equal(false);
  });

  it('names a production package with no licence or a non-SPDX one, unless reviewed', () => {
    const unknown = findUnknownLicences(
      {
        packages: {
          '': {},
          'node_modules/a': { license: 'MIT' },
          'node_modules/b': {},
          'node_modules/c': { license: 'SEE LICENSE IN x' },
          'node_modules/d': { dev: true },
          'node_modules/legacy': {},
          'node_modules/png-js': {},
        },
      },
      (name) => (name === 'legacy' ? 'MIT' : undefined),
    );
    expect(unknown).to.deep.equal(['b: no licence', 'c: SEE LICENSE IN x']);
  });
});
