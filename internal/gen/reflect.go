package gen

import "reflect"

var reflectString = reflect.TypeOf("")
