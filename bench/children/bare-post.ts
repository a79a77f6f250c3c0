/**
 * Bare `node` start → first POST answered: the least a Node process can do to report in.
 *
 *   node bare-post.js URL AUTHORIZATION BODY
 */
import { request } from 'node:http';

const [url, authorization, body] = process.argv.slice(2);
if (url === undefined || authorization === undefined || body === undefined) throw new Error('usage: bare-post URL AUTHORIZATION BODY');
const req = request(url, { method: 'POST', headers: { authorization, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } });
req.on('response', (res) => {
  res.resume();
  res.on('end', () => process.exit(res.statusCode === 200 ? 0 : 1));
});
req.end(body);
