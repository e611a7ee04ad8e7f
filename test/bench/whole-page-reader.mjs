// The export page read whole: what the row splitter (src/http/page-reader.ts) is measured
// against (the `parsers` suite) and what test/commands/export/runner.test.ts shows it loses. Not
// cnv's: each page is read whole by `HttpClient.request` (its answer limit, 64 MiB, not a page's),
// parsed once with every digit kept, its envelope checked, and each row's text made again by
// stringifyJson, as before the splitter: numbers keep their digits, but escapes, member order
// and spellings such as 1.50 or 1e2 are not written as the API sent them.

/**
 * Makes `HttpClient.prototype.call` read export pages whole, from the modules given (dist/ for
 * the benchmark, src/ for a test); returns the function that puts cnv's reader back.
 */
export function readPagesWhole({ HttpClient, requestOf, rowsData, stringifyJson }) {
  const call = HttpClient.prototype.call;
  HttpClient.prototype.call = async function (endpoint, input) {
    if (!('row' in endpoint.answer)) return call.call(this, endpoint, input);
    const { member, row } = endpoint.answer;
    const res = await this.request({ ...requestOf(endpoint, input), data: rowsData(member), paginated: true });
    const rows = input.receive();
    const schema = row();
    res.data[member].forEach((value, index) => {
      if (!schema.safeParse(value).success) throw new Error(`data.${member}.${index}: not a row`);
      rows.row(value, stringifyJson(value));
    });
    return rows.end(res.nextCursor ?? null);
  };
  return () => {
    HttpClient.prototype.call = call;
  };
}
