package io.icebergscan.planning.iceberg.autoconfigure.jdbc;

import org.springframework.data.annotation.Id;
import org.springframework.data.relational.core.mapping.Table;

@Table("driver")
public record Driver(@Id Long id, String name) {
}
