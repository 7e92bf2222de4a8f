import { expect } from 'chai';
import net from 'node:net';

/** One raw request on its own socket: the bytes as given, the answer until the server closes (or `ms`). */
export function rawRequest(port: number, bytes: string | Buffer, ms = 3000): Promise<{ status: number; headers: Record<string, string>; body: string; raw: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), ms);
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (d) => {
      chunks.push(d);
      // a complete answer on a kept-alive connection: no need to wait for the close
      const raw = Buffer.concat(chunks).toString('latin1');
      const end = raw.indexOf('\r\n\r\n');
      const len = /\r\ncontent-length: *(\d+)/i.exec(raw.slice(0, end));
      if (end >= 0 && len && raw.length - end - 4 >= Number(len[1])) socket.destroy();
    });
    socket.on('error', () => {}); // a reset after the answer is fine; the answer is what counts
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString('latin1');
      const head = raw.split('\r\n\r\n')[0] ?? '';
      const m = /^HTTP\/1\.1 (\d{3})/.exec(head);
      const headers: Record<string, string> = {};
      for (const line of head.split('\r\n').slice(1)) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      if (!m && raw.length > 0) reject(new Error(`not an HTTP answer: ${JSON.stringify(raw.slice(0, 200))}`));
      resolve({ status: m ? Number(m[1]) : 0, headers, body: raw.slice(head.length + 4), raw });
    });
  });
}

/** `{error, message}` exactly, with strings, and nothing that looks like a stack, SQL or a file path. */
export function expectErrorBody(text: string, what: string): { error: string; message: string } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${what}: body is not JSON: ${JSON.stringify(text.slice(0, 200))}`);
  }
  expect(body, what).to.be.an('object');
  expect(Object.keys(body as object).sort(), what).to.deep.equal(['error', 'message']);
  const b = body as { error: unknown; message: unknown };
  expect(b.error, what).to.be.a('string');
  expect(b.message, what).to.be.a('string');
  expect(text, what).not.to.match(/\bat [\w.<>]+ \(|node_modules|\.ts:\d|\/work\/|\/home\/|\/tmp\/|syntax error|PGlite|postgres|relation "/i);
  expect(text, what).not.to.match(/\bSELECT\b|\bINSERT\b|\bUPDATE\b|\bFROM\b|\bWHERE\b/); // SQL keywords as SQL writes them
  return b as { error: string; message: string };
}
