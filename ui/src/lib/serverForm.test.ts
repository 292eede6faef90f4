import { describe, expect, it } from 'vitest';
import {
  MAX_INTERVAL_MS,
  MAX_NAME_CHARS,
  displayHost,
  emptyServerForm,
  parseInterval,
  SERIES_AHEAD,
  SERIES_REMOVE_AFTER,
  seriesAheadChoices,
  seriesAheadLabel,
  seriesRemoveAfterChoices,
  seriesRemoveAfterLabel,
  validateInterval,
  serverFormValues,
  suggestName,
  toAddServerInput,
  toUpdateServerInput,
  validateCatalogUrl,
  validateName,
  type ServerFormValues,
} from './serverForm';

describe('validateCatalogUrl', () => {
  it.each([
    'https://books.example.org/opds',
    'http://127.0.0.1:8080/opds',
    '  https://komga.home.lan:25600/opds/v1.2/catalog  ',
    'http://localhost:5000/opds',
    'https://[::1]:8443/opds',
    'HTTPS://Example.ORG/opds',
  ])('accepts %s', (url) => {
    expect(validateCatalogUrl(url)).toBeNull();
  });

  it('asks for an address when there is none', () => {
    expect(validateCatalogUrl('')).toMatch(/enter the server's address/i);
    expect(validateCatalogUrl('   ')).toMatch(/enter the server's address/i);
  });

  it('rejects what is not a web address', () => {
    expect(validateCatalogUrl('not a url')).toMatch(/not a web address/i);
    expect(validateCatalogUrl('http://')).toMatch(/not a web address/i);
  });

  it('takes a bare host or host:port: the catalog is found from there', () => {
    expect(validateCatalogUrl('books.example.org/opds')).toBeNull();
    expect(validateCatalogUrl('localhost:8080')).toBeNull();
    expect(validateCatalogUrl('nas:9810')).toBeNull();
    expect(validateCatalogUrl('komga')).toBeNull();
  });

  it.each(['ftp://example.org/opds', 'file:///etc/passwd', 'javascript:alert(1)', 'mailto:me@example.org'])(
    'rejects the scheme of %s',
    (url) => {
      expect(validateCatalogUrl(url)).toMatch(/not supported; use http:\/\/ or https:\/\//);
    },
  );

  it('rejects credentials inside the address', () => {
    expect(validateCatalogUrl('https://user:pw@example.org/')).toMatch(/their own fields/);
    expect(validateCatalogUrl('https://user@example.org/')).toMatch(/their own fields/);
    expect(validateCatalogUrl('https://:pw@example.org/')).toMatch(/their own fields/);
  });

  it('returns whole sentences', () => {
    for (const bad of ['', 'not a url', 'ftp://x.org', 'https://a:b@x.org']) {
      expect(validateCatalogUrl(bad)).toMatch(/^[A-Z“].*\.$/);
    }
  });
});

describe('validateName', () => {
  it('needs a name', () => {
    expect(validateName('')).toMatch(/give the server a name/i);
    expect(validateName('  \t')).toMatch(/give the server a name/i);
  });

  it('lets a new server go without one (it takes the catalog’s title)', () => {
    expect(validateName('', { optional: true })).toBeNull();
    expect(validateName('x'.repeat(MAX_NAME_CHARS + 1), { optional: true })).toMatch(/too long/);
  });

  it('accepts names up to the limit, counted in characters', () => {
    expect(validateName('Home')).toBeNull();
    expect(validateName('é'.repeat(MAX_NAME_CHARS))).toBeNull();
    expect(validateName('📚'.repeat(MAX_NAME_CHARS))).toBeNull();
    expect(validateName('x'.repeat(MAX_NAME_CHARS + 1))).toMatch(/too long/);
  });
});

describe('suggestName', () => {
  it.each<[string, [string, string][]]>([
    ['offers the host', [['https://books.example.org/opds', 'books.example.org'], ['https://www.example.org/opds', 'example.org'], [' https://Komga.Home.Lan:25600/opds ', 'komga.home.lan']]],
    ['keeps the port for bare addresses', [['http://127.0.0.1:8080/opds', '127.0.0.1:8080'], ['http://localhost:5000/opds', 'localhost:5000'], ['http://localhost/opds', 'localhost']]],
    ['offers the host of an address typed without its scheme', [['127.0.0.1:9810', '127.0.0.1:9810'], ['nas.local:9810/opds', 'nas.local'], ['localhost:5000', 'localhost:5000']]],
    ['offers nothing for an unusable address', [['not a url', ''], ['', ''], ['ftp://example.org', '']]],
  ])('%s', (_name, addresses) => {
    for (const [address, name] of addresses) expect(suggestName(address), address).toBe(name);
  });
});

describe('displayHost', () => {
  it.each<[string, [string, string][]]>([
    ['shows host and port', [['https://books.example.org/opds', 'books.example.org'], ['http://127.0.0.1:8080/opds', '127.0.0.1:8080']]],
    ['falls back to the text it was given', [['odd', 'odd']]],
  ])('%s', (_name, addresses) => {
    for (const [address, host] of addresses) expect(displayHost(address), address).toBe(host);
  });
});

describe('validateInterval', () => {
  it.each(['0', '250', ' 1000 ', String(MAX_INTERVAL_MS)])('accepts %s', (raw) => {
    expect(validateInterval(raw)).toBeNull();
  });

  it('asks for a number when there is none', () => {
    expect(validateInterval('')).toMatch(/enter a number of milliseconds/i);
    expect(validateInterval('  ')).toMatch(/0 for no pause/);
  });

  it.each(['-1', '1.5', '1e3', 'abc', '5 ms', '0x10'])('wants a whole number, not %s', (raw) => {
    expect(validateInterval(raw)).toMatch(/whole number of milliseconds/);
  });

  it('refuses more than a minute', () => {
    expect(validateInterval(String(MAX_INTERVAL_MS + 1))).toMatch(/at most 60000 ms/);
    expect(validateInterval('99999999999999999999')).toMatch(/at most/);
  });

  it('returns whole sentences', () => {
    for (const bad of ['', 'x', '70000']) {
      expect(validateInterval(bad)).toMatch(/^[A-Z].*\.$/);
    }
  });

  it('parses what it accepts', () => {
    expect(parseInterval(' 250 ')).toBe(250);
    expect(parseInterval('0')).toBe(0);
    expect(parseInterval('nope')).toBe(0);
  });
});

describe('toAddServerInput', () => {
  it('starts with no pause and certificates checked', () => {
    expect(emptyServerForm()).toEqual({ name: '', url: '', username: '', password: '', interval: '0', trustSelfSigned: false, apiKey: false });
  });

  it('trims, and sends empty optional fields as null', () => {
    expect(toAddServerInput({ ...emptyServerForm(), name: ' Home ', url: ' https://x.org/opds ', username: '  ' })).toEqual({
      name: 'Home',
      url: 'https://x.org/opds',
      username: null,
      password: null,
      minIntervalMs: 0,
      trustSelfSigned: false,
      apiKey: false,
    });
  });

  it('keeps a password exactly as typed', () => {
    expect(
      toAddServerInput({ ...emptyServerForm(), name: 'a', url: 'https://x.org', username: ' me ', password: ' s3cret ' }),
    ).toMatchObject({
      name: 'a',
      url: 'https://x.org',
      username: 'me',
      password: ' s3cret ',
    });
  });

  it('sends the pause as a number and the certificate choice', () => {
    expect(
      toAddServerInput({ ...emptyServerForm(), name: 'NAS', url: 'https://nas.lan/opds', interval: ' 500 ', trustSelfSigned: true }),
    ).toMatchObject({ minIntervalMs: 500, trustSelfSigned: true });
  });
});

describe('editing a saved server', () => {
  const saved = {
    id: 3,
    name: 'Attic',
    url: 'https://a.example.org/opds',
    username: 'ada',
    min_interval_ms: 0,
    created_at_ms: 0,
    paused_reason: null,
    trust_self_signed: false,
    api_key: false,
  };

  const form = (values: Partial<ServerFormValues>): ServerFormValues => ({ ...serverFormValues(saved), ...values });

  it('fills the form from the server, never with a password', () => {
    expect(serverFormValues(saved)).toEqual({
      name: 'Attic',
      url: 'https://a.example.org/opds',
      username: 'ada',
      password: '',
      interval: '0',
      trustSelfSigned: false,
      apiKey: false,
    });
    expect(serverFormValues({ ...saved, username: null }).username).toBe('');
    expect(serverFormValues({ ...saved, min_interval_ms: 1500, trust_self_signed: true })).toMatchObject({
      interval: '1500',
      trustSelfSigned: true,
      apiKey: false,
    });
  });

  it('keeps the saved password when the field is empty, and sends a new one as typed', () => {
    expect(toUpdateServerInput(form({ name: ' Attic ' }))).toEqual({
      name: 'Attic',
      url: 'https://a.example.org/opds',
      username: 'ada',
      password: null,
      minIntervalMs: 0,
      trustSelfSigned: false,
      apiKey: false,
    });
    expect(toUpdateServerInput(form({ password: ' p ' })).password).toBe(' p ');
  });

  it('forgets the password when the username goes', () => {
    expect(toUpdateServerInput(form({ username: '  ', password: 'x' }))).toMatchObject({
      name: 'Attic',
      url: 'https://a.example.org/opds',
      username: null,
      password: '',
    });
  });

  it('sends the pause and the certificate choice as shown', () => {
    expect(toUpdateServerInput(form({ interval: '2000', trustSelfSigned: true }))).toMatchObject({
      minIntervalMs: 2000,
      trustSelfSigned: true,
      apiKey: false,
    });
  });
});

describe('an API key', () => {
  it('signs in alone: no username is sent beside it, and editing keeps it', () => {
    const values = { ...emptyServerForm(), name: 'Komga', url: 'https://komga.lan/opds/v1.2/catalog', username: 'ada', password: 'k3y', apiKey: true };
    expect(toAddServerInput(values)).toMatchObject({ username: null, password: 'k3y', apiKey: true });
    // Editing: no username does not mean "forget the secret" when it is an API key.
    expect(toUpdateServerInput(values)).toMatchObject({ username: null, password: 'k3y', apiKey: true });
    expect(toUpdateServerInput({ ...values, password: '' })).toMatchObject({ password: null, apiKey: true });
  });
});

describe('the server’s series field', () => {
  it('is off first, and says how many books each series keeps ahead', () => {
    expect(SERIES_AHEAD[0]).toBe(0);
    expect(seriesAheadLabel(0)).toBe('Off');
    expect(seriesAheadLabel(1)).toBe('The next unread book');
    expect(seriesAheadLabel(5)).toBe('The next 5 unread books');
  });

  it('offers a saved value that is not one of the usual choices, in order', () => {
    expect(seriesAheadChoices(2)).toBe(SERIES_AHEAD);
    expect(seriesAheadChoices(4)).toEqual([0, 1, 2, 3, 4, 5, 10]);
    expect(seriesAheadChoices(50).at(-1)).toBe(50);
    expect(seriesRemoveAfterChoices(null)).toBe(SERIES_REMOVE_AFTER);
    expect(seriesRemoveAfterChoices(7)).toBe(SERIES_REMOVE_AFTER);
    expect(seriesRemoveAfterChoices(14).at(-1)).toBe(14);
    expect(seriesRemoveAfterLabel(null)).toBe('stay on this device');
    expect(seriesRemoveAfterLabel(1)).toBe('are removed a day after');
    expect(seriesRemoveAfterLabel(7)).toBe('are removed a week after');
    expect(seriesRemoveAfterLabel(30)).toBe('are removed a month after');
    expect(seriesRemoveAfterLabel(14)).toBe('are removed 14 days after');
  });
});
