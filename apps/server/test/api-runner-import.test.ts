import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRunnerCsv } from '@racebeacon/domain';
import { runners } from '../src/db/schema';
import type { TestContext } from './support/app';
import { call, createRace, multipartFile, startApiTest } from './support/api';
import { dbKinds } from './support/databases';

const BOM = '\uFEFF';

describe.each(dbKinds)('runner CSV import and export (%s)', (kind) => {
  let t: TestContext, alice: string, bob: string, admin: string;
  let raceId: number;

  beforeAll(async () => {
    ({ t, alice, bob, admin } = await startApiTest(kind));
    raceId = await createRace(t, alice, { Name: 'Trail des Cimes 2026' });
  });
  afterAll(async () => t?.close());

  const importCsv = (csv: string | Buffer, query = '', token = alice, race = raceId) =>
    call(t, 'POST', `/api/director/runners/${race}/import${query}`, {
      token,
      payload: csv,
      headers: { 'content-type': 'text/csv' },
    });

  /** The race's runners as stored, in bib order (every column an import may change). */
  const stored = async (race = raceId) =>
    (
      await t.database.db
        .select({
          bib: runners.bibNumber,
          first: runners.firstName,
          last: runners.lastName,
          gender: runners.gender,
          age: runners.age,
          contact: runners.emergencyContact,
          phone: runners.phone,
        })
        .from(runners)
        .where(eq(runners.raceId, race))
        .orderBy(asc(runners.bibNumber))
    ).map((r) => [r.bib, r.first, r.last, r.gender, r.age, r.contact, r.phone]);

  const first =
    'BibNumber,FirstName,LastName,Gender,Age\r\n1,Ada,Lovelace,F,36\r\n2,Alan,Turing,M,41\r\n3,Grace,Hopper,female,\r\n';

  it('a dry run answers what would happen and writes nothing', async () => {
    const res = await importCsv(first, '?dryRun=true');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ Created: 3, Updated: 0, Unchanged: 0, Errors: [], DryRun: true });
    expect(res.json().Rows).toEqual([
      { Line: 2, Action: 'create', BibNumber: '1', FirstName: 'Ada', LastName: 'Lovelace' },
      { Line: 3, Action: 'create', BibNumber: '2', FirstName: 'Alan', LastName: 'Turing' },
      { Line: 4, Action: 'create', BibNumber: '3', FirstName: 'Grace', LastName: 'Hopper' },
    ]);
    expect(await stored()).toEqual([]);
  });

  it('the real import creates the runners', async () => {
    const res = await importCsv(first);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ Created: 3, Updated: 0, Unchanged: 0, Errors: [], DryRun: false });
    expect(await stored()).toEqual([
      ['1', 'Ada', 'Lovelace', 'F', 36, null, null],
      ['2', 'Alan', 'Turing', 'M', 41, null, null],
      ['3', 'Grace', 'Hopper', 'F', null, null, null],
    ]);
  });

  it('a bib already in the race updates its runner (no duplicate); same values are Unchanged', async () => {
    const csv =
      'bib;first name;last name;sex;age;phone\n1;Ada;Lovelace;F;36;\n2;Alan;Turing;M;42;+44 20 1234\n4;Katherine;Johnson;F;50;\n';
    const dry = await importCsv(csv, '?dryRun=true');
    expect(dry.json()).toMatchObject({ Created: 1, Updated: 1, Unchanged: 1, Errors: [] });
    const res = await importCsv(csv);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ Created: 1, Updated: 1, Unchanged: 1, Errors: [] });
    expect(await stored()).toEqual([
      ['1', 'Ada', 'Lovelace', 'F', 36, null, null],
      ['2', 'Alan', 'Turing', 'M', 42, null, '+44 20 1234'],
      ['3', 'Grace', 'Hopper', 'F', null, null, null],
      ['4', 'Katherine', 'Johnson', 'F', 50, null, null],
    ]);
    // the director's list shows each bib once
    const list = (await call(t, 'GET', `/api/director/runners/${raceId}`, { token: alice })).json();
    expect(list.map((r: { BibNumber: string }) => r.BibNumber).sort()).toEqual(['1', '2', '3', '4']);
  });

  const withBadLine =
    'bib,first,last,sex,age\n10,Ok,One,M,30\n11,Bad,Age,M,300\n12,Ok,Two,F,\n13,,NoFirst,F,20\n';

  it('any error writes nothing: 400 naming the first line, every error listed', async () => {
    const before = await stored();
    for (const query of ['', '?dryRun=true']) {
      const res = await importCsv(withBadLine, query);
      expect(res.statusCode).toBe(400);
      const body = res.json();
      expect(body.error).toBe('invalid_csv');
      expect(body.message).toMatch(/^Line 3: Age/);
      expect(body.message).toMatch(/and 1 more/);
      expect(body.Errors).toEqual([
        { Line: 3, Message: expect.stringMatching(/Age/) },
        { Line: 5, Message: expect.stringMatching(/FirstName/) },
      ]);
    }
    expect(await stored()).toEqual(before);
  });

  it('skipInvalid imports the valid rows and lists the others', async () => {
    const dry = await importCsv(withBadLine, '?skipInvalid=true&dryRun=true');
    expect(dry.statusCode).toBe(200);
    expect(dry.json()).toMatchObject({ Created: 2, Errors: [{ Line: 3 }, { Line: 5 }] });
    expect((await stored()).map((r) => r[0])).toEqual(['1', '2', '3', '4']);
    const res = await importCsv(withBadLine, '?skipInvalid=true');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      Created: 2,
      Updated: 0,
      Unchanged: 0,
      Errors: [{ Line: 3 }, { Line: 5 }],
    });
    expect((await stored()).map((r) => r[0])).toEqual(['1', '10', '12', '2', '3', '4']);
  });

  it('reads semicolons with a BOM, quoted separators and line breaks, CRLF, blank lines', async () => {
    const csv =
      `${BOM}Dossard;Prénom;Nom;Sexe;Age;Emergency contact\r\n` +
      `20;"Anne; Marie";"Du ""Pont""";F;41;"Paul\r\n+33 6 12 34 56 78"\r\n` +
      `\r\n` +
      `21;Jean;Martin;H;;\r\n`;
    const res = await importCsv(Buffer.from(csv, 'utf8'));
    expect(res.json().Errors).toEqual([
      { Line: 2, Message: 'EmergencyContact: must not contain control characters' },
    ]);
    expect(res.statusCode).toBe(400);
    const ok = await importCsv(csv.replace('Paul\r\n+33', 'Paul, +33'));
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ Created: 2, Errors: [] });
    const rows = await stored();
    expect(rows.filter((r) => r[0] === '20' || r[0] === '21')).toEqual([
      ['20', 'Anne; Marie', 'Du "Pont"', 'F', 41, 'Paul, +33 6 12 34 56 78', null],
      ['21', 'Jean', 'Martin', 'M', null, null, null],
    ]);
  });

  it.each([
    ['an unterminated quote', 'bib,first,last\n30,A,B\n31,"C,D\n32,E,F\n', 3, /never closed/],
    ['no name columns', 'bib,nickname\n30,A\n', 1, /No FirstName column/],
    ['an empty file', '', 1, /empty/],
  ])('refuses %s with 400 naming the line, even with skipInvalid', async (_name, csv, line, message) => {
    const before = await stored();
    for (const query of ['', '?skipInvalid=true']) {
      const res = await importCsv(csv, query);
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toMatch(new RegExp(`^Line ${line}: `));
      expect(res.json().Errors[0]).toEqual({ Line: line, Message: expect.stringMatching(message) });
    }
    expect(await stored()).toEqual(before);
  });

  it('a bib twice in the file is an error (skipInvalid: the later line is skipped)', async () => {
    const csv = 'bib,first,last\n30,A,B\n31,C,D\n30,E,F\n';
    const before = await stored();
    const res = await importCsv(csv);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      message: expect.stringMatching(/^Line 4: BibNumber 30 is already on line 2/),
      Errors: [{ Line: 4, Message: 'BibNumber 30 is already on line 2.' }],
    });
    expect(await stored()).toEqual(before);
    const skip = await importCsv(csv, '?skipInvalid=true&dryRun=true');
    expect(skip.json()).toMatchObject({ Created: 2, Errors: [{ Line: 4 }] });
  });

  it('refuses a file that is not UTF-8, a JSON body, bad flags', async () => {
    const latin1 = Buffer.from('bib,first,last\n40,Ren\xe9,Dupont\n', 'latin1');
    const enc = await importCsv(latin1);
    expect(enc.statusCode).toBe(400);
    expect(enc.json()).toEqual({ error: 'invalid_encoding', message: expect.stringMatching(/UTF-8/) });
    const json = await call(t, 'POST', `/api/director/runners/${raceId}/import`, {
      token: alice,
      body: { csv: 'x' },
    });
    expect(json.statusCode).toBe(415);
    const flag = await importCsv(first, '?dryRun=maybe');
    expect(flag.statusCode).toBe(400);
    expect(flag.json().error).toBe('validation_error');
  });

  it.each(['text/csv; charset=utf-8', 'text/plain', 'application/vnd.ms-excel'])(
    'takes a body sent as %s (what browsers and spreadsheets label CSV files)',
    async (type) => {
      const res = await call(t, 'POST', `/api/director/runners/${raceId}/import?dryRun=true`, {
        token: alice,
        payload: 'bib,first,last\n70,Type,Test\n',
        headers: { 'content-type': type },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ Created: 1, DryRun: true });
    },
  );

  it('refuses a file over 4 MB with 413', async () => {
    const big = `bib,first,last\n${'1,A,B\n'.repeat(700_000)}`;
    const res = await importCsv(big);
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: expect.any(String), message: expect.any(String) });
  });

  it('takes a multipart upload (field "file") too', async () => {
    const { payload, headers } = multipartFile('bib,first,last\n50,Multi,Part\n', {
      filename: 'runners.csv',
      contentType: 'text/csv',
    });
    const res = await call(t, 'POST', `/api/director/runners/${raceId}/import`, {
      token: alice,
      payload,
      headers,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ Created: 1 });
  });

  it('the race’s owner and admins may import; another director gets 404', async () => {
    expect((await importCsv('bib,first,last\n60,A,B\n', '', bob)).statusCode).toBe(404);
    expect((await importCsv('bib,first,last\n60,A,B\n', '', admin)).json()).toMatchObject({ Created: 1 });
    expect((await importCsv('bib,first,last\n60,A,B\n')).json()).toMatchObject({ Unchanged: 1 });
  });

  it('exports the runners as a CSV that imports back unchanged', async () => {
    const res = await call(t, 'GET', `/api/director/runners/${raceId}/export.csv`, { token: alice });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="runners-trail-des-cimes-2026\.csv"/,
    );
    expect(
      res.body.startsWith(`${BOM}BibNumber,FirstName,LastName,Gender,Age,EmergencyContact,Phone\r\n`),
    ).toBe(true);
    const { rows, errors } = readRunnerCsv(res.body);
    expect(errors).toEqual([]);
    expect(rows.map((r) => r.Runner.BibNumber).sort()).toEqual((await stored()).map((r) => r[0]));
    expect(res.body).toContain('\r\n2,Alan,Turing,M,42,,+44 20 1234\r\n');
    const back = await importCsv(res.body);
    expect(back.json()).toMatchObject({ Created: 0, Updated: 0, Unchanged: rows.length });
    expect(
      (await call(t, 'GET', `/api/director/runners/${raceId}/export.csv`, { token: bob })).statusCode,
    ).toBe(404);
  });
});
