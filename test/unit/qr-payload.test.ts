import { expect } from 'chai';
import { parseQrContent } from '../../src/qr-codes/qr-content';
import {
  dialString,
  encodeQrPayload,
  escapeVcardText,
  escapeWifi,
  foldVcardLine,
} from '../../src/qr-codes/qr-payload';
import type { QrType } from '../../src/qr-codes/qr-code.model';

const DYNAMIC = 'https://go.example.test/s/Ab12Cd34';
const encode = (type: QrType, data: unknown) =>
  encodeQrPayload(parseQrContent(type, data), DYNAMIC);

describe('QR payload encoders', () => {
  it('text is encoded as given, unicode included', () => {
    expect(encode('text', 'Grüße, 世界; a:b')).to.equal('Grüße, 世界; a:b');
  });

  it('link encodes the dynamic redirect, not the target', () => {
    expect(encode('link', 'https://example.com/a?b=c')).to.equal(DYNAMIC);
    expect(encode('link', { url: 'https://example.com/' })).to.equal(DYNAMIC);
  });

  it('phone becomes a tel: URI with only + and digits', () => {
    expect(encode('phone', '+1 (555) 123-4567')).to.equal('tel:+15551234567');
    expect(encode('phone', { phone: '030.123 456' })).to.equal('tel:030123456');
    expect(dialString(' +44 20 7946 0958 ')).to.equal('+442079460958');
  });

  it('sms uses SMSTO:number:message, the message kept verbatim', () => {
    expect(encode('sms', { phone: '+1 555 0100', message: 'Hi: see you; 5pm' })).to.equal(
      'SMSTO:+15550100:Hi: see you; 5pm',
    );
    expect(encode('sms', '+15550100')).to.equal('SMSTO:+15550100');
  });

  it('email is a mailto: URI with percent-encoded subject and CRLF body', () => {
    expect(encode('email', 'someone@example.com')).to.equal('mailto:someone@example.com');
    expect(
      encode('email', {
        email: 'a+b@example.com',
        subject: 'Hello & welcome?',
        body: 'Line 1\nLine 2 100%',
      }),
    ).to.equal(
      'mailto:a%2Bb@example.com?subject=Hello%20%26%20welcome%3F&body=Line%201%0D%0ALine%202%20100%25',
    );
  });

  describe('wifi', () => {
    it('encodes WPA with the WIFI: format', () => {
      expect(encode('wifi', { ssid: 'Home', password: 'secret', encryption: 'WPA' })).to.equal(
        'WIFI:T:WPA;S:Home;P:secret;;',
      );
    });

    it('escapes backslash, semicolon, comma, colon and double quote', () => {
      expect(escapeWifi('a\\b;c,d:e"f')).to.equal('a\\\\b\\;c\\,d\\:e\\"f');
      expect(
        encode('wifi', {
          ssid: 'My;Net,"5G"',
          password: 'p:a\\ss',
          encryption: 'WEP',
          hidden: true,
        }),
      ).to.equal('WIFI:T:WEP;S:My\\;Net\\,\\"5G\\";P:p\\:a\\\\ss;H:true;;');
    });

    it('omits the password of an open network', () => {
      expect(encode('wifi', { ssid: 'Cafe', encryption: 'nopass' })).to.equal(
        'WIFI:T:nopass;S:Cafe;;',
      );
    });
  });

  describe('vcard', () => {
    it('writes vCard 3.0 with CRLF line ends', () => {
      expect(
        encode('vcard', {
          firstname: 'Ada',
          lastname: 'Lovelace',
          phone: '+44 20 7946 0958',
          email: 'ada@example.com',
          org: 'Analytical Engines',
          title: 'Programmer',
          url: 'https://example.com/ada,lovelace',
          address: '12 St James Sq, London',
        }),
      ).to.equal(
        [
          'BEGIN:VCARD',
          'VERSION:3.0',
          'N:Lovelace;Ada;;;',
          'FN:Ada Lovelace',
          'ORG:Analytical Engines',
          'TITLE:Programmer',
          'TEL;TYPE=VOICE:+442079460958',
          'EMAIL;TYPE=INTERNET:ada@example.com',
          'URL:https://example.com/ada,lovelace',
          'ADR:;;12 St James Sq\\, London;;;;',
          'END:VCARD',
          '',
        ].join('\r\n'),
      );
    });

    it('escapes backslash, comma, semicolon and newlines in text values', () => {
      expect(escapeVcardText('a\\b,c;d\ne')).to.equal('a\\\\b\\,c\\;d\\ne');
      expect(encode('vcard', { org: 'Smith; Jones, Partners' })).to.equal(
        'BEGIN:VCARD\r\nVERSION:3.0\r\nN:;;;;\r\nFN:Smith\\; Jones\\, Partners\r\nORG:Smith\\; Jones\\, Partners\r\nEND:VCARD\r\n',
      );
    });

    it('folds lines longer than 75 octets without splitting a character', () => {
      const line = `NOTE:${'é'.repeat(60)}`;
      const folded = foldVcardLine(line);
      const parts = folded.split('\r\n');
      expect(parts.length).to.equal(2);
      for (const part of parts) expect(Buffer.byteLength(part)).to.be.at.most(75);
      expect(parts[1]?.startsWith(' ')).to.equal(true);
      expect(folded.replace(/\r\n /g, '')).to.equal(line);
    });
  });
});

describe('QR data validation per type', () => {
  const refusal = (type: QrType, data: unknown) => {
    try {
      parseQrContent(type, data);
    } catch (err) {
      return (err as Error).message;
    }
    return 'accepted';
  };

  it('names the field that is wrong', () => {
    expect(refusal('text', '')).to.equal('data is not allowed to be empty');
    expect(refusal('link', 'ftp://example.com')).to.equal('data must be an http(s) URL');
    expect(refusal('phone', 'call me')).to.equal(
      'data must be a phone number such as +15551234567',
    );
    expect(refusal('email', { email: 'nope' })).to.equal('data.email must be a valid email');
    expect(refusal('sms', { message: 'hi' })).to.equal('data.phone is required');
    expect(refusal('wifi', { ssid: 'x', encryption: 'WPA' })).to.equal('data.password is required');
    expect(refusal('wifi', { ssid: 'x', encryption: 'WPA3', password: 'p' })).to.equal(
      'data.encryption must be one of [WPA, WEP, nopass]',
    );
    expect(refusal('wifi', 'Home')).to.equal('data must be of type object');
    expect(refusal('vcard', { phone: '+15550100' })).to.equal(
      'data needs at least one of firstname, lastname or org',
    );
  });
});
