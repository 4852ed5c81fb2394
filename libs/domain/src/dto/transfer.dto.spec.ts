import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { failedPaths, messages, REMOVE, withField } from './spec-helpers';
import { InboundShipmentQueryDto, TransferDecisionDto, TransferOutDto } from './transfer.dto';

const ids = (n: number) => Array.from({ length: n }, (_, i) => `d${i}`);

describe('TransferOutDto', () => {
  const valid = {
    recipient_participant_id: '6f1c2d3e-4a5b-4c6d-8e7f-901234567890',
    name: 'June rough parcel',
    shipment_type: 'rough',
    diamond_ids: ['a', 'b'],
  };
  const fails = (key: string, value: unknown) => failedPaths(TransferOutDto, withField(valid, key, value));

  it('accepts a valid body', () => expect(failedPaths(TransferOutDto, valid)).toEqual([]));
  it.each([REMOVE, 'participant-1', '', 5])('recipient_participant_id rejects %p', (v) =>
    expect(fails('recipient_participant_id', v)).toEqual(['recipient_participant_id']),
  );
  it('name is 1..200 characters', () => {
    expect(fails('name', 'x'.repeat(200))).toEqual([]);
    expect(fails('name', 'x'.repeat(201))).toEqual(['name']);
    expect(fails('name', '')).toEqual(['name']);
    expect(fails('name', REMOVE)).toEqual(['name']);
  });
  it('shipment_type is rough or polished', () => {
    expect(fails('shipment_type', 'polished')).toEqual([]);
    expect(fails('shipment_type', 'mixed')).toEqual(['shipment_type']);
  });
  it('diamond_ids: 1..1000 unique non-empty strings', () => {
    expect(fails('diamond_ids', ids(1000))).toEqual([]);
    expect(fails('diamond_ids', ids(1001))).toEqual(['diamond_ids']);
    expect(messages(TransferOutDto, { ...valid, diamond_ids: ids(1001) })).toEqual(['diamond_ids must contain at most 1000 entries']);
    expect(fails('diamond_ids', [])).toEqual(['diamond_ids']);
    expect(fails('diamond_ids', ['a', 'a'])).toEqual(['diamond_ids']);
    expect(fails('diamond_ids', ['a', 2])).toEqual(['diamond_ids']);
    expect(fails('diamond_ids', ['a', ''])).toEqual(['diamond_ids']);
    expect(fails('diamond_ids', REMOVE)).toEqual(['diamond_ids']);
  });
  it('rejects unknown fields', () => expect(fails('note', 'x')).toEqual(['note']));
});

describe('TransferDecisionDto', () => {
  it('accepts a list of ids', () => expect(failedPaths(TransferDecisionDto, { diamond_ids: ['a'] })).toEqual([]));
  it('rejects an empty, duplicate or missing list and unknown fields', () => {
    expect(failedPaths(TransferDecisionDto, { diamond_ids: [] })).toEqual(['diamond_ids']);
    expect(failedPaths(TransferDecisionDto, { diamond_ids: ['a', 'a'] })).toEqual(['diamond_ids']);
    expect(failedPaths(TransferDecisionDto, {})).toEqual(['diamond_ids']);
    expect(failedPaths(TransferDecisionDto, { diamond_ids: ['a'], all: true })).toEqual(['all']);
  });
});

describe('InboundShipmentQueryDto', () => {
  const parse = (query: Record<string, string>) => {
    const dto = plainToInstance(InboundShipmentQueryDto, query);
    return { dto, errors: validateSync(dto, { whitelist: true, forbidNonWhitelisted: true }) };
  };

  it('defaults page to 1 and page_size to 50', () => {
    const { dto, errors } = parse({});
    expect(errors).toEqual([]);
    expect(dto.page).toBe(1);
    expect(dto.page_size).toBe(50);
    expect(dto.shipment_type).toBeUndefined();
  });

  it('converts query strings to numbers', () => {
    const { dto, errors } = parse({ page: '3', page_size: '100', shipment_type: 'polished' });
    expect(errors).toEqual([]);
    expect(dto).toMatchObject({ page: 3, page_size: 100, shipment_type: 'polished' });
  });

  it.each([
    [{ page: '0' }, 'page'],
    [{ page: 'two' }, 'page'],
    [{ page: '1.5' }, 'page'],
    [{ page_size: '0' }, 'page_size'],
    [{ page_size: '101' }, 'page_size'],
    [{ page_size: 'x' }, 'page_size'],
    [{ shipment_type: 'mixed' }, 'shipment_type'],
    [{ status: 'open' }, 'status'],
  ])('rejects %p on %s', (query, field) => {
    expect(failedPaths(InboundShipmentQueryDto, query)).toEqual([field]);
  });
});
