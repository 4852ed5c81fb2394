import { toGradingDataView } from '../diamonds/diamond.mapper';
import { toGradingData } from './graded-measurements.service';

describe('graded measurement mapping', () => {
  it('stores decimals as decimal text and omits members that were not supplied', () => {
    expect(toGradingData({ carats: 1.01, depth: '61.20', colour: 'D', clarity: null, shape: undefined })).toEqual({
      carats: '1.01',
      depth: '61.20',
      colour: 'D',
      clarity: null,
    });
  });

  it('builds the GradingDataView with the four record members winning over data', () => {
    const view = toGradingDataView({
      id: 'g1',
      diamond_id: 'd',
      source: 'gis',
      is_active: true,
      is_selectable: true,
      data: { carats: '1.00', shape: 'Round' },
      created_by: null,
      created_at: new Date(),
      updated_at: new Date(),
      held_back_at: null,
    });
    expect(view).toEqual({ carats: '1.00', shape: 'Round', id: 'g1', is_active: true, is_selectable: true, source: 'gis' });
  });
});
