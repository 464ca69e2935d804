// The HTTP status of each API error code, as the decisions page gives them: 400 for 1xxx, 404 for
// 2001, 403 for 2002, 500 for 9001 (unexpected server error).
import { describe, expect, it } from 'vitest';
import { ApiFail, statusOf } from '../../../src/sandbox/http';
import { renderXmlError } from '../../../src/sandbox/render-xml';

describe('API error statuses', () => {
  it('1001, 1002, 1003: 400; 2001: 404; 2002: 403; 9001: 500', () => {
    expect([1001, 1002, 1003, 2001, 2002, 9001].map(statusOf)).toEqual([400, 400, 400, 404, 403, 500]);
    expect(new ApiFail(9001, 'Unexpected server error: x').status).toBe(500);
    expect(new ApiFail(2002, 'not here').status).toBe(403);
  });

  it('the XML error form: <response status="error" version="1.2"> with <error code><errorMessage>', () => {
    const xml = renderXmlError(2002, 'Resource not available in current context: <GB & JP>');
    expect(xml).toMatch(/<response [^>]*status="error" version="1.2"[^>]*><error code="2002"><errorMessage>Resource not available in current context: &lt;GB &amp; JP&gt;<\/errorMessage><\/error><\/response>\n$/);
  });
});
