import { plainToInstance } from 'class-transformer';
import { CreateRoughDiamondDto } from '@dtp/domain';
import { roughOf } from './registration.service';

const dto = (rough: Record<string, unknown>) =>
  plainToInstance(CreateRoughDiamondDto, { box_id: 'B', participant_id: 'P', participant_timestamp: '2024-01-01T00:00:00Z', rough });

describe('roughOf', () => {
  it('writes carats as decimal text and echoes exactly the supplied members', () => {
    expect(roughOf(dto({ carats: 1.5, colour: 'D', model: null }))).toEqual({ carats: '1.5', colour: 'D', model: null });
    expect(roughOf(dto({ carats: '0.30' }))).toEqual({ carats: '0.30' });
    expect(roughOf(dto({ carats: 0.1 + 0.2 })).carats).toBe('0.30000000000000004');
  });
});
