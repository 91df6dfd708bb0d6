import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestContext } from './support/app';
import { call, createRace, startApiTest } from './support/api';
import { dbKinds } from './support/databases';

/**
 * A race without a course is a normal state (issue 15): the course reads answer 204 No Content, not a 404 the
 * browser would log as a failed request. Unknown, unapproved (publicly) and other directors' races stay 404.
 */
describe.each(dbKinds)('course read before a course exists (%s)', (kind) => {
  let t: TestContext, alice: string, bob: string;

  beforeAll(async () => {
    ({ t, alice, bob } = await startApiTest(kind));
  });
  afterAll(async () => t?.close());

  it('answers 204 with no body to the owner and, once approved, to anyone', async () => {
    const raceId = await createRace(t, alice, { Name: 'No course yet' });
    const own = await call(t, 'GET', `/api/director/course/${raceId}`, { token: alice });
    expect(own.statusCode).toBe(204);
    expect(own.body).toBe('');
    expect((await call(t, 'GET', `/api/open/course/${raceId}`)).statusCode).toBe(404);

    const approved = await createRace(t, alice, { Name: 'Approved, no course' }, { approve: true });
    const pub = await call(t, 'GET', `/api/open/course/${approved}`);
    expect(pub.statusCode).toBe(204);
    expect(pub.body).toBe('');
    expect((await call(t, 'GET', `/api/director/course/${approved}`, { token: alice })).statusCode).toBe(204);
  });

  it('still answers 404 for a race that does not exist or is someone else’s', async () => {
    const raceId = await createRace(t, alice, { Name: 'Alice only' });
    expect((await call(t, 'GET', `/api/director/course/${raceId}`, { token: bob })).statusCode).toBe(404);
    expect((await call(t, 'GET', `/api/director/course/999999`, { token: alice })).statusCode).toBe(404);
    expect((await call(t, 'GET', `/api/open/course/999999`)).statusCode).toBe(404);
  });
});
