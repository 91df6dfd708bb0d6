import { describe, expect, it } from 'vitest';
import { CsvError, csvField, detectDelimiter, parseCsv, toCsv, unguardFormula } from '../src/csv';
import {
  formatElapsed,
  normalizeHeader,
  parseGender,
  planRunnerImport,
  readRunnerCsv,
  resultsToCsv,
  runnersToCsv,
  type ExistingRunner,
} from '../src/runner-csv';

const BOM = '\uFEFF';

describe('parseCsv', () => {
  it.each([
    [
      'comma',
      'a,b\r\n1,2\r\n',
      [
        [1, ['a', 'b']],
        [2, ['1', '2']],
      ],
    ],
    [
      'semicolon',
      'a;b\n1,5;2\n',
      [
        [1, ['a', 'b']],
        [2, ['1,5', '2']],
      ],
    ],
    [
      'tab',
      'a\tb\n1\t2',
      [
        [1, ['a', 'b']],
        [2, ['1', '2']],
      ],
    ],
    [
      'BOM',
      `${BOM}a,b\n1,2\n`,
      [
        [1, ['a', 'b']],
        [2, ['1', '2']],
      ],
    ],
    [
      'BOM + semicolons',
      `${BOM}a;b\r\n1;2\r\n`,
      [
        [1, ['a', 'b']],
        [2, ['1', '2']],
      ],
    ],
    [
      'no final line end',
      'a,b\n1,2',
      [
        [1, ['a', 'b']],
        [2, ['1', '2']],
      ],
    ],
    [
      'quoted comma',
      'a,b\n"x, y",2\n',
      [
        [1, ['a', 'b']],
        [2, ['x, y', '2']],
      ],
    ],
    [
      'doubled quotes',
      'a,b\n"say ""hi""",2\n',
      [
        [1, ['a', 'b']],
        [2, ['say "hi"', '2']],
      ],
    ],
    [
      'empty quoted field',
      'a,b\n"",2\n',
      [
        [1, ['a', 'b']],
        [2, ['', '2']],
      ],
    ],
    [
      'newline inside quotes keeps the line count',
      'a,b\n"two\nlines",2\n3,4\n',
      [
        [1, ['a', 'b']],
        [2, ['two\nlines', '2']],
        [4, ['3', '4']],
      ],
    ],
    [
      'CRLF inside quotes',
      'a,b\r\n"two\r\nlines",2\r\n3,4\r\n',
      [
        [1, ['a', 'b']],
        [2, ['two\r\nlines', '2']],
        [4, ['3', '4']],
      ],
    ],
    [
      'blank lines skipped',
      'a,b\n\n1,2\n  \n\n3,4\n\n',
      [
        [1, ['a', 'b']],
        [3, ['1', '2']],
        [6, ['3', '4']],
      ],
    ],
    [
      'separator-only lines skipped',
      'a;b\n;\n1;2\n;;\n',
      [
        [1, ['a', 'b']],
        [3, ['1', '2']],
      ],
    ],
    [
      'old Mac CR line ends',
      'a,b\r1,2\r',
      [
        [1, ['a', 'b']],
        [2, ['1', '2']],
      ],
    ],
    [
      'spaces around a quoted field',
      'a,b\n  "x" ,2\n',
      [
        [1, ['a', 'b']],
        [2, ['x', '2']],
      ],
    ],
    [
      'quote inside an unquoted field is text',
      'a,b\n5" tall,2\n',
      [
        [1, ['a', 'b']],
        [2, ['5" tall', '2']],
      ],
    ],
    [
      'trailing empty field',
      'a,b,\n1,2,\n',
      [
        [1, ['a', 'b', '']],
        [2, ['1', '2', '']],
      ],
    ],
    ['empty input', '', []],
    ['only a BOM', BOM, []],
  ])('%s', (_name, input, expected) => {
    const { records } = parseCsv(input as string);
    expect(records.map((r) => [r.line, r.fields])).toEqual(expected);
  });

  it.each([
    ['unterminated quote names the line it opens on', 'a,b\n1,2\n"open,3\n4,5\n', 3, /never closed/],
    ['text after a closing quote', 'a,b\n"x"y,2\n', 2, /after a closing quote/],
  ])('%s', (_name, input, line, message) => {
    let error: unknown;
    try {
      parseCsv(input);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CsvError);
    expect((error as CsvError).line).toBe(line);
    expect((error as CsvError).message).toMatch(message);
  });

  it.each([
    ['a,b,c', ','],
    ['a;b;c', ';'],
    ['"x;y",b,c', ','],
    ['"x,y";b;c', ';'],
    ['a\tb', '\t'],
    ['single', ','],
    ['\n\na;b\n', ';'],
  ])('detects the separator of %j as %j', (header, expected) => {
    expect(detectDelimiter(header)).toBe(expected);
  });
});

describe('toCsv / csvField', () => {
  it.each([
    ['plain', 'abc', 'abc'],
    ['comma', 'a,b', '"a,b"'],
    ['quote', 'say "hi"', '"say ""hi"""'],
    ['newline', 'a\nb', '"a\nb"'],
    ['leading space', ' a', '" a"'],
    ['number', 42, '42'],
    ['null', null, ''],
    ['undefined', undefined, ''],
  ])('%s', (_name, value, expected) => {
    expect(csvField(value)).toBe(expected);
  });

  it('CRLF lines, BOM on request, formulas guarded and read back', () => {
    const text = toCsv(
      [
        ['Name', 'Note'],
        ['=HYPERLINK("x")', 'ok'],
        ['-5', -5],
        ['+33 6 12 34', '-2+3+cmd'],
        ['@SUM(A1)', '+x'],
      ],
      { bom: true, guardFormulas: true },
    );
    expect(text).toBe(
      `${BOM}Name,Note\r\n"'=HYPERLINK(""x"")",ok\r\n-5,-5\r\n+33 6 12 34,'-2+3+cmd\r\n'@SUM(A1),'+x\r\n`,
    );
    expect(parseCsv(text).records.map((r) => r.fields.map(unguardFormula))).toEqual([
      ['Name', 'Note'],
      ['=HYPERLINK("x")', 'ok'],
      ['-5', '-5'],
      ['+33 6 12 34', '-2+3+cmd'],
      ['@SUM(A1)', '+x'],
    ]);
  });

  it('round-trips awkward values', () => {
    const rows = [
      ['a', 'b', 'c'],
      ['x, y', 'he said "no"', 'two\r\nlines'],
      ['', ' pad ', 'é ü 😀'],
    ];
    expect(parseCsv(toCsv(rows)).records.map((r) => r.fields)).toEqual(rows);
    expect(parseCsv(toCsv(rows, { delimiter: ';' })).records.map((r) => r.fields)).toEqual(rows);
  });
});

describe('runner CSV headers and values', () => {
  it.each([
    ['BibNumber', 'bibnumber'],
    ['Bib Number', 'bibnumber'],
    ['bib_number', 'bibnumber'],
    ['BIB #', 'bib'],
    ['Prénom', 'prenom'],
    ['first-name', 'firstname'],
  ])('normalizes %j to %j', (header, expected) => {
    expect(normalizeHeader(header)).toBe(expected);
  });

  it.each([
    ['M', 'M'],
    ['male', 'M'],
    ['Male', 'M'],
    ['H', 'M'],
    ['f', 'F'],
    ['Female', 'F'],
    ['woman', 'F'],
    ['W', 'F'],
    ['Féminin', 'F'],
    ['', undefined],
    ['  ', undefined],
    ['X', null],
  ])('gender %j → %j', (value, expected) => {
    expect(parseGender(value)).toBe(expected);
  });

  it.each([
    ['BibNumber,FirstName,LastName,Gender,Age'],
    ['bib,first name,last name,sex,age'],
    ['Bib Number,First_Name,Last_Name,SEX,AGE'],
    ['dossard,given name,surname,gender,Age'],
    ['bib,first,family name,Sex,age'],
  ])('reads the header %j', (header) => {
    const { rows, errors } = readRunnerCsv(`${header}\n7,Ada,Lovelace,female,36\n`);
    expect(errors).toEqual([]);
    expect(rows).toEqual([
      {
        Line: 2,
        Runner: { BibNumber: '7', FirstName: 'Ada', LastName: 'Lovelace', Gender: 'F', Age: 36 },
        Keep: [],
      },
    ]);
  });
});

describe('readRunnerCsv', () => {
  it('reads semicolons with a BOM, quoted values, the HQ columns and ignores unknown columns', () => {
    const text =
      `${BOM}Bib;First name;Last name;Sex;Age;Emergency Contact;Phone;T-shirt\r\n` +
      `1;"Anne; Marie";Dupont;F;41;"Paul, husband +33 6 12";+33 6 00;M\r\n` +
      `\r\n` +
      `2;Jean;"Le ""Roc""";M;;;;L\r\n`;
    const r = readRunnerCsv(text);
    expect(r.errors).toEqual([]);
    expect(r.delimiter).toBe(';');
    expect(r.ignored).toEqual(['T-shirt']);
    expect(r.columns).toEqual({
      BibNumber: 'Bib',
      FirstName: 'First name',
      LastName: 'Last name',
      Gender: 'Sex',
      Age: 'Age',
      EmergencyContact: 'Emergency Contact',
      Phone: 'Phone',
    });
    expect(r.rows).toEqual([
      {
        Line: 2,
        Runner: {
          BibNumber: '1',
          FirstName: 'Anne; Marie',
          LastName: 'Dupont',
          Gender: 'F',
          Age: 41,
          EmergencyContact: 'Paul, husband +33 6 12',
          Phone: '+33 6 00',
        },
        Keep: [],
      },
      {
        Line: 4,
        Runner: {
          BibNumber: '2',
          FirstName: 'Jean',
          LastName: 'Le "Roc"',
          Gender: 'M',
          Age: null,
          EmergencyContact: null,
          Phone: null,
        },
        Keep: [],
      },
    ]);
  });

  it('a row without Gender and Age columns keeps them on update and gets the defaults on create', () => {
    const r = readRunnerCsv('bib,first name,last name\n5,A,B\n');
    expect(r.rows).toEqual([
      {
        Line: 2,
        Runner: { BibNumber: '5', FirstName: 'A', LastName: 'B', Gender: 'M', Age: null },
        Keep: ['Gender', 'Age'],
      },
    ]);
  });

  it.each([
    ['missing FirstName', '1,,B,M,30', /FirstName/],
    ['missing bib', ',A,B,M,30', /BibNumber: is required/],
    ['unknown gender', '1,A,B,X,30', /Gender: "X" is not M or F/],
    ['age not a number', '1,A,B,M,thirty', /Age: "thirty" is not a whole number/],
    ['age out of range', '1,A,B,M,130', /Age/],
    ['decimal age', '1,A,B,M,30.5', /Age: "30.5"/],
    ['bib too long', `${'9'.repeat(21)},A,B,M,30`, /BibNumber/],
    ['first name too long', `1,${'a'.repeat(101)},B,M,30`, /FirstName/],
    ['too many fields', '1,A,B,M,30,extra', /6 fields, the header has 5/],
  ])('refuses a row with %s, naming line 3', (_name, row, message) => {
    const r = readRunnerCsv(`bib,first,last,sex,age\n9,Ok,Row,F,20\n${row}\n`);
    expect(r.rows.map((x) => x.Line)).toEqual([2]);
    expect(r.errors).toEqual([{ Line: 3, Message: expect.stringMatching(message) }]);
  });

  it('a control character in a phone is refused', () => {
    const r = readRunnerCsv('bib,first,last,phone\n1,A,B,"12\u000134"\n');
    expect(r.errors).toEqual([{ Line: 2, Message: 'Phone: must not contain control characters' }]);
  });

  it('a bib twice in the file is an error on the later line', () => {
    const r = readRunnerCsv('bib,first,last\n1,A,B\n2,C,D\n01,E,F\n1,G,H\n');
    expect(r.rows.map((x) => x.Line)).toEqual([2, 3, 4]);
    expect(r.errors).toEqual([{ Line: 5, Message: 'BibNumber 1 is already on line 2.' }]);
  });

  it.each([
    ['no bib column', 'first,last\nA,B\n', [/No BibNumber column/]],
    ['no name columns', 'bib\n1\n', [/No FirstName column/, /No LastName column/]],
    [
      'two bib columns',
      'bib,dossard,first,last\n1,1,A,B\n',
      [/"bib" and "dossard" both look like BibNumber/],
    ],
    ['header only', 'bib,first,last\n', [/no runners/]],
    ['empty file', '', [/empty/]],
  ])('header problems: %s', (_name, text, messages) => {
    const r = readRunnerCsv(text);
    expect(r.rows).toEqual([]);
    expect(r.errors).toEqual(messages.map((m) => ({ Line: 1, Message: expect.stringMatching(m) })));
  });

  it('an unterminated quote is one error naming its line', () => {
    const r = readRunnerCsv('bib,first,last\n1,A,B\n2,"C,D\n3,E,F\n');
    expect(r.rows).toEqual([]);
    expect(r.errors).toEqual([{ Line: 3, Message: expect.stringMatching(/never closed/) }]);
  });

  it('errors come sorted by line, valid rows are still read', () => {
    const r = readRunnerCsv('bib,first,last,age\n1,,B,1\n2,C,D,2\n3,E,F,x\n');
    expect(r.errors.map((e) => e.Line)).toEqual([2, 4]);
    expect(r.rows.map((x) => x.Runner.BibNumber)).toEqual(['2']);
  });
});

describe('planRunnerImport', () => {
  const existing: ExistingRunner[] = [
    {
      RunnerId: 10,
      BibNumber: '1',
      FirstName: 'A',
      LastName: 'B',
      Gender: 'F',
      Age: 30,
      EmergencyContact: 'x',
      Phone: null,
    },
    {
      RunnerId: 11,
      BibNumber: '2',
      FirstName: 'C',
      LastName: 'D',
      Gender: 'M',
      Age: null,
      EmergencyContact: null,
      Phone: null,
    },
    {
      RunnerId: 12,
      BibNumber: null,
      FirstName: 'No',
      LastName: 'Bib',
      Gender: 'M',
      Age: null,
      EmergencyContact: null,
      Phone: null,
    },
  ];

  it.each([
    [
      'same values: unchanged',
      'bib,first,last,sex,age\n1,A,B,F,30\n',
      [{ Kind: 'unchanged', Line: 2, RunnerId: 10 }],
    ],
    [
      'no gender/age columns keep the stored ones',
      'bib,first,last\n1,A,B\n',
      [{ Kind: 'unchanged', Line: 2, RunnerId: 10 }],
    ],
    [
      'an empty gender cell keeps it',
      'bib,first,last,sex,age\n1,A,B,,30\n',
      [{ Kind: 'unchanged', Line: 2, RunnerId: 10 }],
    ],
    [
      'a changed name updates',
      'bib,first,last\n1,Ann,B\n',
      [
        {
          Kind: 'update',
          Line: 2,
          RunnerId: 10,
          Runner: { BibNumber: '1', FirstName: 'Ann', LastName: 'B', Gender: 'F', Age: 30 },
        },
      ],
    ],
    [
      'an emptied emergency contact updates',
      'bib,first,last,emergency contact\n1,A,B,\n',
      [
        {
          Kind: 'update',
          Line: 2,
          RunnerId: 10,
          Runner: {
            BibNumber: '1',
            FirstName: 'A',
            LastName: 'B',
            Gender: 'F',
            Age: 30,
            EmergencyContact: null,
          },
        },
      ],
    ],
    [
      'a new bib creates',
      'bib,first,last\n3,E,F\n',
      [
        {
          Kind: 'create',
          Line: 2,
          Runner: { BibNumber: '3', FirstName: 'E', LastName: 'F', Gender: 'M', Age: null },
        },
      ],
    ],
  ])('%s', (_name, text, expected) => {
    const { rows, errors } = readRunnerCsv(text);
    expect(errors).toEqual([]);
    expect(planRunnerImport(existing, rows)).toEqual(expected);
  });

  it('the export reads back as unchanged', () => {
    const withBibs = existing.filter((r) => r.BibNumber !== null);
    const text = runnersToCsv(withBibs);
    expect(text.startsWith(`${BOM}BibNumber,FirstName,LastName,Gender,Age,EmergencyContact,Phone\r\n`)).toBe(
      true,
    );
    const { rows, errors } = readRunnerCsv(text);
    expect(errors).toEqual([]);
    expect(planRunnerImport(existing, rows).map((a) => a.Kind)).toEqual(['unchanged', 'unchanged']);
  });
});

describe('resultsToCsv', () => {
  it.each([
    [0, '0:00:00'],
    [59.6, '0:01:00'],
    [3723, '1:02:03'],
    [93784, '26:03:04'],
    [null, ''],
    [-1, ''],
  ])('elapsed %j → %j', (s, expected) => {
    expect(formatElapsed(s)).toBe(expected);
  });

  it('writes the header, rows and checkpoint columns', () => {
    const text = resultsToCsv(
      [
        {
          Rank: 1,
          BibNumber: '7',
          FirstName: 'Ada',
          LastName: 'Lovelace, Countess',
          Gender: 'F',
          Age: 36,
          Status: 'finished',
          FinishTime: '2026-06-06T12:00:00.000Z',
          ElapsedSeconds: 18000,
          DistanceKm: 42.1956,
          Passes: ['2026-06-06T09:30:00.000Z', null],
        },
        {
          Rank: null,
          BibNumber: null,
          FirstName: 'Bob',
          LastName: 'B',
          Gender: 'M',
          Age: null,
          Status: 'DNS',
          FinishTime: null,
          ElapsedSeconds: null,
          DistanceKm: null,
        },
      ],
      ['Aid 1', 'Aid 2'],
    );
    expect(text).toBe(
      '\uFEFFRank,BibNumber,FirstName,LastName,Gender,Age,Status,FinishTime,Elapsed,DistanceKm,Aid 1,Aid 2\r\n' +
        '1,7,Ada,"Lovelace, Countess",F,36,finished,2026-06-06T12:00:00Z,5:00:00,42.2,2026-06-06T09:30:00Z,\r\n' +
        ',,Bob,B,M,,DNS,,,,,\r\n',
    );
  });
});
