import { expect } from 'chai';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../src/shared/http/json-body';
import { findLoneSurrogate } from '../../src/shared/http/well-formed';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('unit: JSON nesting depth, read before parsing (issue 27)', () => {
  it('counts arrays and objects alike, up to the limit and one past it', () => {
    const nest = (depth: number) => '[{"a":'.repeat(depth / 2) + '1' + '}]'.repeat(depth / 2);
    expect(nestedDeeperThan(bytes(nest(MAX_JSON_DEPTH)), MAX_JSON_DEPTH)).to.equal(false);
    expect(nestedDeeperThan(bytes(nest(MAX_JSON_DEPTH + 2)), MAX_JSON_DEPTH)).to.equal(true);
    expect(nestedDeeperThan(bytes('['.repeat(33)), 32)).to.equal(true);
    expect(nestedDeeperThan(bytes('[[],[],[[]]]'), 3)).to.equal(false);
    expect(nestedDeeperThan(bytes('[[],[],[[]]]'), 2)).to.equal(true);
  });

  it('reads brackets inside strings, escaped quotes included, as text', () => {
    const text = JSON.stringify({ a: '[[[[{{{{', b: 'say \\"[[[[[[" and ]]]]', c: ['\\', '['] });
    expect(nestedDeeperThan(bytes(text), 2)).to.equal(false);
  });

  it('reads multi-byte UTF-8 text byte by byte without miscounting', () => {
    const text = JSON.stringify({ emoji: '😀[', cjk: '孛孛{' });
    expect(nestedDeeperThan(bytes(text), 1)).to.equal(false);
  });

  it('leaves malformed text (more closing than opening) to the parser', () => {
    expect(nestedDeeperThan(bytes(']]]]]]'), 1)).to.equal(false);
    expect(nestedDeeperThan(bytes('"unterminated [[[['), 1)).to.equal(false);
  });

  it('finds a lone surrogate however deep the value is, without growing the call stack', () => {
    let deep: unknown = '\ud800';
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    expect(findLoneSurrogate(deep)).to.equal('0.'.repeat(100_000).slice(0, -1));
  });

  it('names the first lone surrogate in document order, a key before what it holds', () => {
    expect(findLoneSurrogate({ a: 'fine', b: { '\udc00': 'x', c: '\ud800' } })).to.equal(
      'b.\udc00',
    );
    expect(findLoneSurrogate({ a: { b: '\ud800' }, '\udc00': 1 })).to.equal('a.b');
    expect(findLoneSurrogate({ a: ['ok', '😀'] })).to.equal(undefined);
  });
});
