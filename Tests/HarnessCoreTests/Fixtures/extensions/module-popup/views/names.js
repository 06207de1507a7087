export const label = (tab) => `${tab.id} ${tab.active ? 'active' : 'behind'} in ${tab.windowId} at ${tab.index}`;
