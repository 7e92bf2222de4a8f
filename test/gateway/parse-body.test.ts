/** parseBody (gateway/http/parse-body.ts): schema problems named in plain words, the first one only. */
import { expect } from 'chai';
import { z } from 'zod';
import { ServiceError } from '../../shared/errors.ts';
import { parseBody } from '../../gateway/http/parse-body.ts';

const schema = z.object({
  name: z.string().trim().min(1).max(200),
  email: z.email().optional(),
  formats: z.array(z.enum(['webp', 'png', 'jpeg'])).max(3).optional(),
  rpm: z.number().int().min(1).optional(),
  slug: z.string().regex(/^[a-z]+$/, 'must be a lower-case slug').optional(),
}).strict();

function message(data: unknown): string {
  try {
    parseBody(schema, data);
  } catch (e) {
    expect(e).to.be.instanceOf(ServiceError);
    expect((e as ServiceError).code).to.equal('bad_request');
    return (e as ServiceError).message;
  }
  throw new Error('no error');
}

describe('parseBody', () => {
  describe('happy', () => {
    it('returns the parsed data', () => {
      expect(parseBody(schema, { name: ' A ' })).to.deep.equal({ name: 'A' });
    });
  });
  describe('error', () => {
    it('names the field and the problem in plain words', () => {
      expect(message({})).to.equal('Invalid name: it is required');
      expect(message(undefined)).to.equal('Invalid name: it is required');
      expect(message({ name: '   ' })).to.equal('Invalid name: it must not be empty');
      expect(message({ name: 'x'.repeat(201) })).to.equal('Invalid name: it must be at most 200 characters');
      expect(message({ name: 5 })).to.equal('Invalid name: it must be a string');
      expect(message({ name: 'a', rpm: 0 })).to.equal('Invalid rpm: it must be at least 1');
      expect(message({ name: 'a', rpm: 'x' })).to.equal('Invalid rpm: it must be a number');
      expect(message({ name: 'a', formats: ['gif'] })).to.equal('Invalid formats.0: use one of "webp", "png", "jpeg"');
      expect(message({ name: 'a', formats: 'png' })).to.equal('Invalid formats: it must be a list');
      expect(message({ name: 'a', formats: ['png', 'png', 'png', 'png'] })).to.equal('Invalid formats: it must be at most 3 items');
      expect(message({ name: 'a', email: 'nope' })).to.equal('Invalid email: it is not an email address');
      expect(message({ name: 'a', slug: 'A B' })).to.equal('Invalid slug: must be a lower-case slug');
      expect(message({ name: 'a', extra: 1 })).to.equal('Invalid body: unknown field extra');
      expect(message([1])).to.equal('Invalid body: it must be an object');
    });
  });
  describe('security', () => {
    it('never echoes the value sent', () => {
      expect(message({ name: 'a', rpm: '<script>' })).to.not.contain('<script>');
    });
  });
});
