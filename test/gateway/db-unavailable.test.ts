import { expect } from 'chai';
import { ServiceError } from '../../shared/errors.ts';
import { asDatabaseUnavailable, onlyReads } from '../../gateway/db/unavailable.ts';

/** The database failures that are an outage (503, retry) and those that are not (the error as it was, a 500). */
describe('database failures as the documented 503', () => {
  const pgError = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});
  const outage = (err: Error, mayHaveApplied: boolean) => {
    const e = asDatabaseUnavailable(err, { mayHaveApplied });
    return e instanceof ServiceError && e.code === 'unavailable' && e.headers?.['Retry-After'] === '5' && e.cause === err;
  };

  describe('happy', () => {
    it('nothing reached the server, or the server cancelled the statement: 503 whatever the statement was', () => {
      for (const err of [
        pgError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
        pgError('getaddrinfo ENOTFOUND db', 'ENOTFOUND'),
        pgError('the database system is starting up', '57P03'),
        pgError('sorry, too many clients already', '53300'),
        pgError('canceling statement due to statement timeout', '57014'),
        pgError('timeout exceeded when trying to connect'),
      ]) {
        expect(outage(err, true), err.message).to.equal(true);
        expect(outage(err, false), err.message).to.equal(true);
      }
    });
    it('a connection lost under a read or an uncommitted transaction: 503', () => {
      for (const err of [
        pgError('read ECONNRESET', 'ECONNRESET'),
        pgError('terminating connection due to administrator command', '57P01'),
        pgError('Connection terminated unexpectedly'),
        pgError('Query read timeout'),
      ]) expect(outage(err, false), err.message).to.equal(true);
    });
  });

  describe('error', () => {
    it('a connection lost under a write or a COMMIT keeps its error: the outcome is unknown, a retry could apply it twice', () => {
      for (const err of [pgError('read ECONNRESET', 'ECONNRESET'), pgError('Connection terminated unexpectedly'), pgError('terminating connection due to administrator command', '57P01')]) {
        expect(asDatabaseUnavailable(err, { mayHaveApplied: true }), err.message).to.equal(err);
      }
    });
    it('a statement we built wrong, or a constraint, is not an outage', () => {
      for (const err of [
        pgError('bind message supplies 1 parameters, but prepared statement "" requires 2', '08P01'),
        pgError('duplicate key value violates unique constraint "orgs_pkey"', '23505'),
        pgError('relation "nope" does not exist', '42P01'),
        new TypeError('x is undefined'),
      ]) expect(asDatabaseUnavailable(err, { mayHaveApplied: false }), err.message).to.equal(err);
      const already = new ServiceError('not_found');
      expect(asDatabaseUnavailable(already, { mayHaveApplied: false })).to.equal(already);
    });
  });

  describe('security', () => {
    it('reads are told from writes, a data-modifying CTE included', () => {
      expect(onlyReads('SELECT 1')).to.equal(true);
      expect(onlyReads('  with x as (select 1) select * from x')).to.equal(true);
      expect(onlyReads('WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x')).to.equal(false);
      expect(onlyReads('INSERT INTO t VALUES (1)')).to.equal(false);
      expect(onlyReads('UPDATE t SET n = 1')).to.equal(false);
    });
  });
});
