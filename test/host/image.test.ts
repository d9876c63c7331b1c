import { describe, expect, test } from "vitest";
import { detectImage, imageDimensions } from "../../host/image.ts";

describe("imageDimensions", () => {
  test("a truncated header has no dimensions", () => {
    expect(imageDimensions(Buffer.from("GIF87a"))).toBeUndefined();
    expect(imageDimensions(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]))).toBeUndefined();
  });

  test("a view into a larger buffer is measured by its own bytes, never by what lies past its end", () => {
    const backing = Buffer.concat([Buffer.from("GIF87a"), Buffer.from([0x40, 0x01, 0xf0, 0x00, 0, 0, 0, 0])]);
    expect(imageDimensions(backing)).toEqual({ width: 320, height: 240 });
    const head = backing.subarray(0, 6);
    expect(detectImage(head)?.name).toBe("GIF");
    expect(imageDimensions(head)).toBeUndefined();
  });
});
