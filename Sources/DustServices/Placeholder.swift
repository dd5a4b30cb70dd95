import DustKit
