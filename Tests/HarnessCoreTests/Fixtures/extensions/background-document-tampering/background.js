// A document's methods are functions of node's realm: their prototype is every document's.
Object.getPrototypeOf(document.querySelector).markedByAPage = true;
