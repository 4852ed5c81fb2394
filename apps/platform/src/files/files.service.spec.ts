import type { FileRef } from '@dtp/domain';
import { sampleRow } from '../../test/diamond.fixture';
import { applyRef } from './files.service';

const ref = (hash: string, description: string | null = null): FileRef => ({
  hash,
  filename: `${hash}.bin`,
  description,
  content_type: 'application/octet-stream',
  size: 10,
  uploaded_at: '2024-01-01T00:00:00.000Z',
});

describe('applyRef', () => {
  it('appends images with their image_type and replaces a ref to the same bytes', () => {
    let row = sampleRow();
    row = { ...row, polished: applyRef(row, 'image', ref('a'), { image_type: 'front' }).polished };
    row = { ...row, polished: applyRef(row, 'image', ref('b'), {}).polished };
    const { polished, ref: out } = applyRef(row, 'image', ref('a', 'again'), { image_type: 'side' });
    expect(out).toEqual({ ...ref('a', 'again'), image_type: 'side' });
    expect(polished.images!.map((i) => [i.hash, i.image_type, i.description])).toEqual([
      ['b', null, null],
      ['a', 'side', 'again'],
    ]);
  });

  it('keeps a single scan (a new one replaces it) and lists the other kinds', () => {
    const row = sampleRow({ polished: { scan: ref('old'), carats: '1.00' } });
    expect(applyRef(row, 'scan', ref('new'), {}).polished).toEqual({ scan: ref('new'), carats: '1.00' });
    expect(applyRef(row, 'video', ref('v'), {}).polished.videos).toEqual([ref('v')]);
    expect(applyRef(row, 'scan_report', ref('r'), {}).polished.scan_reports).toEqual([ref('r')]);
    expect(applyRef(row, 'supplementary', ref('s'), {}).polished.supplementary_files).toEqual([ref('s')]);
    // The stored row is not modified in place.
    expect(row.polished).toEqual({ scan: ref('old'), carats: '1.00' });
  });

  it("writes grading certificate refs with exactly the spec's members", () => {
    const { ref: out, polished } = applyRef(sampleRow(), 'grading_certificate', ref('g', 'GIA'), {});
    expect(out).toEqual({ hash: 'g', filename: 'g.bin', description: 'GIA' });
    expect(polished.grading_certificates).toEqual([out]);
  });
});
