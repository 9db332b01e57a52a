package io.icebergscan.planning.data;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The Apache Iceberg table an entity's rows are read from, as {@code namespace.table} ({@code "sales.orders"}; a
 * nested namespace's levels are separated by dots too, the last part is the table). The entity is a record or a bean;
 * its properties map to the table's columns as {@code IcebergScanPlanner.readRows(…, Class)} maps them: the column of
 * the property's name, or else of that name in snake case, or else the one its
 * {@link io.icebergscan.planning.iceberg.Column @Column} names.
 *
 * <p>It also marks the entity as Iceberg's when an application has repositories of other Spring Data modules.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface IcebergTable {

  /** The table, as {@code namespace.table}. */
  String value();
}
