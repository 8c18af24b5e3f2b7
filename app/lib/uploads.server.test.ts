// Reading an upload: the body cap (with or without Content-Length) and the file checks.
import { describe, expect, it } from "vitest";
import { FILE_TOO_LARGE_MESSAGE, INVALID_FILE_TYPE_MESSAGE } from "../../core/csv.ts";
import { MAX_UPLOAD_BYTES } from "../../core/limits.ts";
import { bufferBody, NO_FILE_MESSAGE, readCsvFile } from "./uploads.server.ts";

function streamOf(chunks: number, size: number) {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent++ < chunks) controller.enqueue(new Uint8Array(size).fill(65));
      else controller.close();
    },
  });
}

const post = (body: BodyInit, headers: Record<string, string> = {}) =>
  new Request("http://app.test/portal/my-team", { method: "POST", body, headers, duplex: "half" } as RequestInit);

describe("bufferBody", () => {
  it("keeps a body within the cap, byte for byte", async () => {
    const buffered = await bufferBody(post(streamOf(3, 1000)), 5000);
    expect(buffered).not.toBeNull();
    expect((await buffered?.text())?.length).toBe(3000);
  });

  it("refuses a streamed body over the cap, and one that declares more", async () => {
    expect(await bufferBody(post(streamOf(6, 1000)), 5000)).toBeNull();
    expect(await bufferBody(post("x".repeat(10), { "content-length": "999999" }), 5000)).toBeNull();
  });
});

describe("readCsvFile", () => {
  const form = (file?: File) => {
    const data = new FormData();
    if (file) data.set("file", file);
    return data;
  };

  it("answers the text of a .csv file", async () => {
    expect(await readCsvFile(form(new File(["a,b\r\n"], "team.CSV")))).toEqual({
      ok: true,
      fileName: "team.CSV",
      text: "a,b\r\n",
    });
  });

  it("refuses no file, another type and a file over MAX_UPLOAD_BYTES", async () => {
    expect(await readCsvFile(form())).toEqual({ ok: false, message: NO_FILE_MESSAGE });
    expect(await readCsvFile(form(new File([""], "")))).toEqual({ ok: false, message: NO_FILE_MESSAGE });
    expect(await readCsvFile(form(new File(["a"], "team.xlsx")))).toEqual({
      ok: false,
      message: INVALID_FILE_TYPE_MESSAGE,
    });
    expect(await readCsvFile(form(new File([new Uint8Array(MAX_UPLOAD_BYTES + 1)], "big.csv")))).toEqual({
      ok: false,
      message: FILE_TOO_LARGE_MESSAGE,
    });
  });
});
