import { expect } from 'chai';
import { jsonData, markup } from '../../src/shared/http/html';

describe('visitor page templates (pure)', () => {
  it('escapes every interpolated string, in text and attributes', () => {
    const evil = `"'><script>alert(1)</script>&`;
    expect(markup`<a title="${evil}">${evil}</a>`.value).to.equal(
      '<a title="&quot;&#39;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;">&quot;&#39;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;</a>',
    );
  });

  it('keeps nested markup, joins lists and drops empty values', () => {
    const items = ['a<', 'b'].map((x) => markup`<li>${x}</li>`);
    expect(markup`<ul>${items}</ul>${null}${undefined}${false}${0}`.value).to.equal(
      '<ul><li>a&lt;</li><li>b</li></ul>0',
    );
  });

  it('writes JSON that can never close its script block', () => {
    const out = jsonData({
      target: 'https://x/</script><script>alert(1)</script>',
      s: '\u2028',
    }).value;
    expect(out).not.to.include('<');
    expect(JSON.parse(out)).to.deep.equal({
      target: 'https://x/</script><script>alert(1)</script>',
      s: '\u2028',
    });
  });
});
