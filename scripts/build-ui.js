console.log('ui build placeholder')
