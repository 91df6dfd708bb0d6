import { describe, expect, it } from 'vitest';
import { contactParts, telHref } from './contact-links';

describe('telHref', () => {
  it('links a phone number by its digits, keeping a leading +', () => {
    expect(telHref('+49 170 123-4567')).toBe('tel:+491701234567');
    expect(telHref('(0170) 123 45 67')).toBe('tel:01701234567');
    expect(telHref(' 112 ')).toBeNull();
    expect(telHref('Maria 0170 1234567')).toBeNull();
    expect(telHref('1234567890123456')).toBeNull();
  });
});

describe('contactParts', () => {
  it('links the whole text when it is a number', () => {
    expect(contactParts('+44 20 7946 0958')).toEqual([
      { text: '+44 20 7946 0958', href: 'tel:+442079460958' },
    ]);
  });

  it('links the number inside a name and number', () => {
    expect(contactParts('Maria Test (wife) +49 170 1234567, evenings')).toEqual([
      { text: 'Maria Test (wife) ' },
      { text: '+49 170 1234567', href: 'tel:+491701234567' },
      { text: ', evenings' },
    ]);
    expect(contactParts('Tom: 0170 111 2222 or 030 555 1234')).toEqual([
      { text: 'Tom: ' },
      { text: '0170 111 2222', href: 'tel:01701112222' },
      { text: ' or ' },
      { text: '030 555 1234', href: 'tel:0305551234' },
    ]);
  });

  it('leaves text without a phone number plain, and nothing for empty text', () => {
    expect(contactParts('Ask the race office, room 12')).toEqual([{ text: 'Ask the race office, room 12' }]);
    expect(contactParts('  ')).toEqual([]);
    expect(contactParts(null)).toEqual([]);
  });
});
