import { expect } from 'chai';
import {
  colourProblem,
  contrastRatio,
  formatRgb,
  MIN_CONTRAST,
  parseRgb,
} from '../../src/qr-codes/qr-colors';

describe('QR colours', () => {
  it('parses rgb(r,g,b) with spaces and refuses anything else', () => {
    expect(parseRgb('rgb(1, 2,3)')).to.deep.equal({ r: 1, g: 2, b: 3 });
    expect(parseRgb(' RGB( 255 ,0 , 10 ) ')).to.deep.equal({ r: 255, g: 0, b: 10 });
    expect(parseRgb('#0A10fF')).to.deep.equal({ r: 10, g: 16, b: 255 });
    for (const bad of [
      'rgb(256,0,0)',
      'rgb(-1,0,0)',
      'rgb(1,2)',
      '#fff',
      '#ggffff',
      'rgba(1,2,3,1)',
      '',
    ]) {
      expect(parseRgb(bad), bad).to.equal(undefined);
    }
    expect(formatRgb({ r: 1, g: 2, b: 3 })).to.equal('rgb(1,2,3)');
  });

  it('computes the WCAG contrast ratio', () => {
    const black = { r: 0, g: 0, b: 0 };
    const white = { r: 255, g: 255, b: 255 };
    expect(contrastRatio(black, white)).to.equal(21);
    expect(contrastRatio(white, white)).to.equal(1);
    // WCAG's own example pair: #777777 on white is about 4.48:1.
    expect(contrastRatio({ r: 119, g: 119, b: 119 }, white)).to.be.closeTo(4.48, 0.01);
  });

  it(`accepts dark on light from ${MIN_CONTRAST}:1 and refuses below`, () => {
    const white = { r: 255, g: 255, b: 255 };
    expect(colourProblem({ r: 0, g: 0, b: 0 }, white)).to.equal(undefined);
    expect(colourProblem({ r: 148, g: 148, b: 148 }, white)).to.equal(undefined); // 3.03:1
    expect(colourProblem({ r: 150, g: 150, b: 150 }, white)).to.equal(
      'foreground and background contrast is 2.95:1; at least 3:1 is needed for the code to scan',
    );
  });

  it('refuses light modules on a dark background', () => {
    expect(colourProblem({ r: 255, g: 255, b: 255 }, { r: 0, g: 0, b: 0 })).to.equal(
      'foreground must be darker than background: many scanners cannot read light-on-dark codes',
    );
  });
});
