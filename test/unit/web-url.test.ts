import { expect } from 'chai';
import { cleanOrigin, isCleanHost } from '../../src/shared/http/web-url';
import { previewPage } from '../../src/visitor/visitor-pages';
import { pixelSources } from '../../src/visitor/visitor-pixels';

describe('clean URL hosts and CSP sources (issue 29, M1)', () => {
  it('takes host names, punycode, IPv4 and bracketed IPv6 as clean hosts', () => {
    for (const host of ['example.com', 'xn--bcher-kva.example', '192.0.2.1', '[::1]', 'a_b.c.']) {
      expect(isCleanHost(host), host).to.equal(true);
    }
  });

  it("refuses hosts with ; , ' * spaces or an empty label", () => {
    for (const host of ['x;script-src', 'a,b', "x'y", '*.example', 'a..b', '-a.example', '[zz]']) {
      expect(isCleanHost(host), host).to.equal(false);
    }
  });

  it('gives the origin of a clean http(s) URL and null for anything else', () => {
    expect(cleanOrigin('https://img.example.com:8443/a.png?x=1')).to.equal(
      'https://img.example.com:8443',
    );
    expect(cleanOrigin('https://x;script-src/a.png')).to.equal(null);
    expect(cleanOrigin('javascript:alert(1)')).to.equal(null);
    expect(cleanOrigin('not a url')).to.equal(null);
  });

  it('drops a stored meta image with an unclean host from the preview page policy', () => {
    const { policy } = previewPage(
      { title: 't', description: '', image: 'https://x;script-src https://attacker.example/a' },
      'http://linkqr.test/abc',
    );
    expect(policy).not.to.include('attacker.example');
    expect(policy.split('; ').filter((d) => d.startsWith('script-src'))).to.deep.equal([]);
    expect(policy).to.include("img-src 'self' data:");
  });

  it('drops a stored generic beacon with an unclean host from the pixel sources', () => {
    const sources = pixelSources([
      { type: 'retargetpixel', tag: 'https://x;script-src https://attacker.example' },
      { type: 'retargetpixel', tag: 'https://beacon.example/p?id=1' },
    ]);
    expect(sources.beacons).to.deep.equal(['https://beacon.example']);
    expect(sources.scripts).to.deep.equal([]);
  });
});
