import { LIFECYCLE_TRANSITIONS, canTransition, isTerminalLifecycleState } from './lifecycle';
import { ROLE_AUDIENCE_KIND, audienceKindForRole, mayRequestAudience } from './roles';
import { DELETE_LIMIT } from './limits';

describe('audienceKindForRole', () => {
  it('maps each role to the one audience it may ask for', () => {
    expect(ROLE_AUDIENCE_KIND).toEqual({
      producer: 'platform',
      manufacturer: 'platform',
      retailer: 'platform',
      grading_lab: 'gis',
      non_participant: 'search',
    });
    expect(audienceKindForRole('grading_lab')).toBe('gis');
    expect(audienceKindForRole('admin')).toBeUndefined();
    expect(audienceKindForRole('toString')).toBeUndefined();
  });

  it('mayRequestAudience refuses other audiences (invalid_target)', () => {
    expect(mayRequestAudience('producer', 'platform')).toBe(true);
    expect(mayRequestAudience('producer', 'search')).toBe(false);
    expect(mayRequestAudience('non_participant', 'platform')).toBe(false);
  });
});

describe('lifecycle transitions', () => {
  it('pins the table', () => {
    expect(LIFECYCLE_TRANSITIONS).toEqual({ rough: ['polished', 'split', 'destroyed'], split: [], polished: [], destroyed: [] });
  });

  it.each([
    ['rough', 'polished', true],
    ['rough', 'split', true],
    ['rough', 'destroyed', true],
    ['rough', 'rough', false],
    ['split', 'polished', false],
    ['polished', 'destroyed', false],
    ['polished', 'rough', false],
    ['destroyed', 'rough', false],
    ['unknown', 'rough', false],
    ['rough', 'unknown', false],
  ])('%s -> %s: %p', (from, to, allowed) => expect(canTransition(from, to)).toBe(allowed));

  it('split, polished and destroyed are terminal', () => {
    expect(isTerminalLifecycleState('rough')).toBe(false);
    expect(['split', 'polished', 'destroyed'].every((s) => isTerminalLifecycleState(s as 'split'))).toBe(true);
  });

  it('DELETE_LIMIT is 1000', () => expect(DELETE_LIMIT).toBe(1000));
});
