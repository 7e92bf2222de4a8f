import { expect } from 'chai';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { ERROR_CODES, GRPC_STATUS, HTTP_STATUS, ServiceError, codeFromGrpcStatus, defaultMessage, toServiceError } from '../../shared/errors.ts';
import { backendLabel } from './support/backend.ts';
import { startTestGateway } from './support/gateway-fixture.ts';

describe('error catalogue', () => {
  it('every code maps to an HTTP status, a gRPC status and a fixed default message', () => {
    for (const code of ERROR_CODES) {
      expect(HTTP_STATUS[code], code).to.be.within(400, 599);
      expect(GRPC_STATUS[code], code).to.be.a('number').and.not.equal(GrpcStatus.OK);
      expect(defaultMessage(code), code).to.be.a('string').that.is.not.empty;
      const e = new ServiceError(code);
      expect(Object.keys(e.toBody())).to.deep.equal(['error', 'message']);
      expect(e.httpStatus).to.equal(HTTP_STATUS[code]);
    }
  });

  it('the spec codes have the spec statuses', () => {
    expect(HTTP_STATUS).to.include({ bad_request: 400, unauthorized: 401, forbidden: 403, not_found: 404, rate_limited: 429, quota_exceeded: 429, internal: 500 });
  });

  it('renderer statuses map back to the codes the gateway answers with', () => {
    expect(codeFromGrpcStatus(GrpcStatus.INVALID_ARGUMENT)).to.equal('bad_request');
    expect(codeFromGrpcStatus(GrpcStatus.NOT_FOUND)).to.equal('not_found');
    expect(codeFromGrpcStatus(GrpcStatus.RESOURCE_EXHAUSTED)).to.equal('resource_exhausted');
    expect(codeFromGrpcStatus(GrpcStatus.UNAVAILABLE)).to.equal('unavailable');
    expect(codeFromGrpcStatus(GrpcStatus.DEADLINE_EXCEEDED)).to.equal('deadline_exceeded');
    expect(codeFromGrpcStatus(GrpcStatus.DATA_LOSS)).to.equal('internal');
  });

  it('anything that is not a ServiceError becomes internal with the generic message', () => {
    const e = toServiceError(new Error('connection refused at 10.0.0.3:5432'));
    expect(e.code).to.equal('internal');
    expect(e.message).not.to.contain('10.0.0.3');
  });
});

describe(`a failing dependency (${backendLabel()})`, () => {
  it('is answered 500 internal with a generic message and no stack or detail', async () => {
    const gw = await startTestGateway();
    const c = await gw.admin.customer();
    const closing = gw.db.close();
    await closing;
    const a = await gw.getWithKey(c.key, '/v1/makes');
    expect(a.status).to.equal(500);
    expect(a.body).to.deep.equal({ error: 'internal', message: 'An unexpected error occurred' });
    expect(a.text).not.to.match(/at \w+ \(|Error:|\.ts:/);
    await gw.close().catch(() => {});
  });
});
